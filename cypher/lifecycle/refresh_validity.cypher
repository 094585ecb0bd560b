// name: lifecycle/refresh_validity
// Derived state of record episodes: valid_to is the earliest valid_to of the facts compiled from them
// (null while all are current or none is left) — for the given episodes, or all of the tenant's when $ids
// is null. Used after compiled facts were deleted (forget) or rebuilt.
// params: $tenant (string), $ids (list of strings or null)
// returns: episodes (count refreshed)
:param tenant => 'demo';
:param ids => null;
MATCH (e:Memory:Episode {tenant: $tenant})
WHERE coalesce(e.origin, 'record') = 'record' AND ($ids IS NULL OR e.id IN $ids)
CALL (e) {
  OPTIONAL MATCH (e)<-[:DERIVED_FROM]-(g:Fact)
  RETURN min(g.valid_to) AS earliest
}
SET e.valid_to = earliest
RETURN count(e) AS episodes
