// name: ingest/refresh_episode_validity
// Derived state: an episode stops being current when a fact compiled from it is superseded;
// its valid_to is the earliest valid_to of its derived facts (null while all are current).
// params: $tenant (string), $slots (list of slot keys touched)
// returns: episodes (count refreshed)
:param tenant => 'demo';
:param slots => [];
UNWIND $slots AS slot
MATCH (f:Memory:Fact {slot: slot})-[:DERIVED_FROM]->(e:Episode)
WHERE f.tenant = $tenant AND e.tenant = $tenant
WITH DISTINCT e
CALL (e) {
  MATCH (e)<-[:DERIVED_FROM]-(g:Fact)
  RETURN min(g.valid_to) AS earliest
}
SET e.valid_to = earliest
RETURN count(e) AS episodes
