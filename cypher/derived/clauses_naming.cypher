// name: derived/clauses_naming
// For each memory of $ids, the plain-text records of the same tenant and user whose cause clause's vector is at
// least $floor alike to the memory's own (the normalised score of the index), at most $k: the memories whose
// clause may name it, whose causes its arrival may change. Neo4j 5.26: the index has no tenant filter, so it is
// asked for $fetch and the tenant's are kept (the 2026.x variant filters inside the index).
// params: $tenant (string), $ids (list of strings), $k (int), $fetch (int), $floor (float, 0..1)
// returns: id, near (list of ids, most alike first)
:param tenant => 'demo';
:param ids => ['img-h1'];
:param k => 30;
:param fetch => 400;
:param floor => 0.65;
UNWIND $ids AS wanted
MATCH (src:Memory {tenant: $tenant, id: wanted})
WHERE src.embedding IS NOT NULL
CALL (src) {
  CALL db.index.vector.queryNodes('memory_clause_embedding', $fetch, src.embedding) YIELD node AS m, score
  WITH m, score
  WHERE m.tenant = $tenant AND m <> src AND score >= $floor AND m:Episode AND m.origin = 'record'
    AND m.merged_into IS NULL AND coalesce(m.user, '') = coalesce(src.user, '')
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $k
  RETURN collect(m.id) AS near
}
RETURN src.id AS id, near
