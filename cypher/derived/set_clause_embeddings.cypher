// name: derived/set_clause_embeddings
// Store the vector of the cause clause each memory states (derived, stored as float32 like the embedding), so
// a memory that arrives later finds, through the memory_clause_embedding index, the memories whose clause
// names it.
// params: $tenant (string), $rows (list of maps: id, vector (list of 384 floats))
// returns: written
:param tenant => 'demo';
:param rows => [];
UNWIND $rows AS row
MATCH (m:Memory {tenant: $tenant, id: row.id})
CALL db.create.setNodeVectorProperty(m, 'clause_embedding', row.vector)
RETURN count(m) AS written
