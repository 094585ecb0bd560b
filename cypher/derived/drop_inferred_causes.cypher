// name: derived/drop_inferred_causes
// Remove inferred CAUSED_BY links leaving the given memories (before inferring them again), or all of the
// tenant's inferred links when $ids is null. Explicit links are never touched.
// params: $tenant (string), $ids (list of strings or null)
// returns: removed
:param tenant => 'scratch-tenant';
:param ids => null;
MATCH (m:Memory {tenant: $tenant})-[r:CAUSED_BY]->()
WHERE coalesce(r.inferred, false) AND ($ids IS NULL OR m.id IN $ids)
DELETE r
RETURN count(r) AS removed
