// name: derived/supersession_vectors
// The vectors of the memories (by id) the inferred-supersession pass pairs in memory, when the write that
// stored them did not hand them over (a rebuild, a re-run after a crash).
// params: $tenant (string), $ids (list of strings)
// returns: id, embedding (list of floats)
:param tenant => 'demo';
:param ids => ['c1', 'c2'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
WHERE m.embedding IS NOT NULL
RETURN m.id AS id, m.embedding AS embedding
