// name: derived/v2026/clauses_naming
// For each memory of $ids, the plain-text records of the same tenant and user whose cause clause's vector is at
// least $floor alike to the memory's own, at most $k, the tenant filtered inside the vector index (Neo4j
// 2026.x: SEARCH ... WHERE m.tenant = $tenant).
// params: $tenant (string), $ids (list of strings), $k (int), $fetch (int), $floor (float, 0..1)
// returns: id, near (list of ids, most alike first)
:param tenant => 'demo';
:param ids => ['img-h1'];
:param k => 30;
:param fetch => 60;
:param floor => 0.65;
CYPHER 25
UNWIND $ids AS wanted
MATCH (src:Memory {tenant: $tenant, id: wanted})
WHERE src.embedding IS NOT NULL
CALL (src) {
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_clause_embedding FOR src.embedding WHERE m.tenant = $tenant LIMIT $fetch)
    SCORE AS score
  WITH m, score
  WHERE m <> src AND score >= $floor AND m:Episode AND m.origin = 'record' AND m.merged_into IS NULL
    AND coalesce(m.user, '') = coalesce(src.user, '')
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $k
  RETURN collect(m.id) AS near
}
RETURN src.id AS id, near
