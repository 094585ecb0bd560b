// name: derived/v2026/cause_clause_neighbors
// For each memory of $queries that states a cause clause, the plain-text records of the same tenant and user
// whose vectors are at least $floor alike to the clause's vector, at most $k, the tenant filtered inside the
// vector index (Neo4j 2026.x: SEARCH ... WHERE m.tenant = $tenant).
// params: $tenant (string), $queries (list of maps: id, vector (list of floats)), $k (int), $fetch (int),
//         $floor (float, 0..1)
// returns: id, near (list of ids, most alike first)
:param tenant => 'demo';
:param queries => [];
:param k => 20;
:param fetch => 40;
:param floor => 0.65;
CYPHER 25
UNWIND $queries AS q
MATCH (src:Memory {tenant: $tenant, id: q.id})
CALL (src, q) {
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_embedding FOR q.vector WHERE m.tenant = $tenant LIMIT $fetch) SCORE AS score
  WITH m, score
  WHERE m <> src AND score >= $floor AND m:Episode AND m.origin = 'record' AND m.merged_into IS NULL
    AND coalesce(m.user, '') = coalesce(src.user, '')
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $k
  RETURN collect(m.id) AS near
}
RETURN src.id AS id, near
