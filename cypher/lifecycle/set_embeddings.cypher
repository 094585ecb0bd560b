// name: lifecycle/set_embeddings
// Store new embeddings (float32 vectors) and the model that made them on the tenant's memories.
// params: $tenant (string), $embedding_model (string), $rows (list of maps: id, embedding)
// returns: embedded
:param tenant => 'demo';
:param embedding_model => 'sentence-transformers/all-MiniLM-L6-v2@gt-0.1.0';
:param rows => [{id: 'img-root', embedding: [x IN range(1, 384) | 0.05]}];
UNWIND $rows AS row
MATCH (m:Memory {tenant: $tenant, id: row.id})
SET m.embedding_model = $embedding_model
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
RETURN count(m) AS embedded
