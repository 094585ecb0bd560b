// name: derived/cause_clause_neighbors
// For each memory of $queries that states a cause clause ("… because the disk filled up"), the plain-text
// records of the same tenant and user whose vectors are at least $floor alike to the clause's vector (the
// normalised score of the index), at most $k: the memories that may be the cause it names, however unlike the
// whole memory. Neo4j 5.26: the index has no tenant filter, so it is asked for $fetch and the tenant's are kept
// (the 2026.x variant filters inside the index).
// params: $tenant (string), $queries (list of maps: id, vector (list of floats)), $k (int), $fetch (int),
//         $floor (float, 0..1)
// returns: id, near (list of ids, most alike first)
:param tenant => 'demo';
:param queries => [];
:param k => 20;
:param fetch => 400;
:param floor => 0.65;
UNWIND $queries AS q
MATCH (src:Memory {tenant: $tenant, id: q.id})
CALL (src, q) {
  CALL db.index.vector.queryNodes('memory_embedding', $fetch, q.vector) YIELD node AS m, score
  WITH m, score
  WHERE m.tenant = $tenant AND m <> src AND score >= $floor AND m:Episode AND m.origin = 'record'
    AND m.merged_into IS NULL AND coalesce(m.user, '') = coalesce(src.user, '')
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $k
  RETURN collect(m.id) AS near
}
RETURN src.id AS id, near
