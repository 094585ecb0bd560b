// name: derived/supersession_neighbors
// For each memory of $ids, its $k nearest plain-text records of the same tenant and user at least $floor alike (by the memory's own
// vector, earlier or later): the candidates the inferred-supersession pass scores as (newer, older) pairs.
// Neo4j 5.26: the index has no tenant filter, so it is asked for $fetch and the tenant's are kept (the 2026.x
// variant filters inside the index).
// params: $tenant (string), $ids (list of strings), $k (int), $fetch (int), $floor (float, 0..1: the least
//         normalised score of a neighbour)
// returns: id, near (list of {id, score}; score is the normalised cosine; the pass reads what it lacks of
//          each neighbour through derived/supersession_sources)
:param tenant => 'demo';
:param ids => ['c2'];
:param k => 8;
:param fetch => 200;
:param floor => 0.65;
UNWIND $ids AS wanted
MATCH (src:Memory {tenant: $tenant, id: wanted})
WHERE src.embedding IS NOT NULL
CALL (src) {
  CALL db.index.vector.queryNodes('memory_embedding', $fetch, src.embedding) YIELD node AS m, score
  WITH m, score
  WHERE m.tenant = $tenant AND m <> src AND score >= $floor AND m:Episode AND m.origin = 'record' AND m.merged_into IS NULL
    AND coalesce(m.user, '') = coalesce(src.user, '')
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $k
  RETURN collect({id: m.id, score: score}) AS near
}
RETURN src.id AS id, near
