// name: derived/missing_context_of
// Of the memories $ids and the memories derived from them (facts compiled from a record), those with a vector
// but no derived context yet: what an ingest's context pass must add beside the written memories' neighbours
// (the facts compiled beside them; records of a run killed between its write and the pass). Read by id, so an
// ingest costs what it writes; derived/missing_context scans the whole tenant instead.
// params: $tenant (string), $ids (list of strings)
// returns: ids (list of strings), in one row
:param tenant => 'demo';
:param ids => ['img-h2'];
UNWIND $ids AS wanted
MATCH (m0:Memory {tenant: $tenant, id: wanted})
CALL (m0) {
  RETURN m0 AS m
  UNION
  MATCH (m:Memory)-[:DERIVED_FROM]->(m0)
  WHERE m.tenant = $tenant
  RETURN m
}
WITH m WHERE m.embedding IS NOT NULL AND m.context_embedding IS NULL
RETURN collect(DISTINCT m.id) AS ids
