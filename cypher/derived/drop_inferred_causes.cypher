// name: derived/drop_inferred_causes
// Remove inferred CAUSED_BY links leaving the given memories (before inferring them again), or all of the
// tenant's inferred links when $ids is null, with the own-cause marks (cause_in_text) of the same memories.
// Explicit links are never touched.
// params: $tenant (string), $ids (list of strings or null)
// returns: removed (links)
:param tenant => 'scratch-tenant';
:param ids => null;
MATCH (m:Memory {tenant: $tenant})
WHERE $ids IS NULL OR m.id IN $ids
REMOVE m.cause_in_text
WITH m
OPTIONAL MATCH (m)-[r:CAUSED_BY]->()
WHERE coalesce(r.inferred, false)
DELETE r
RETURN count(r) AS removed
