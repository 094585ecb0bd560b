// name: derived/drop_inferred_supersedes
// Remove the inferred SUPERSEDES links touching the given memories (either end), or all of the tenant's when
// $ids is null, and clear the pass's mark on those memories. Explicit links (slot chains) are never touched.
// params: $tenant (string), $ids (list of strings or null)
// returns: removed
:param tenant => 'scratch-tenant';
:param ids => null;
CALL () {
  MATCH (m:Memory {tenant: $tenant})-[r:SUPERSEDES]-(:Memory)
  WHERE coalesce(r.inferred, false) AND ($ids IS NULL OR m.id IN $ids)
  WITH DISTINCT r
  DELETE r
  RETURN count(r) AS removed
}
CALL () {
  MATCH (m:Memory {tenant: $tenant})
  WHERE m.supersession IS NOT NULL AND ($ids IS NULL OR m.id IN $ids)
  REMOVE m.supersession
  RETURN count(m) AS cleared
}
RETURN removed
