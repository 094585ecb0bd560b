// name: admin/count_tenant
// How many memories, facts, episodes, entities and edges a tenant holds.
// params: $tenant (string)
// returns: memories, episodes, facts, summaries, entities, caused_by, supersedes, next, mentions
:param tenant => 'demo';
CALL () { MATCH (m:Memory {tenant: $tenant}) RETURN count(m) AS memories }
CALL () { MATCH (m:Memory:Episode {tenant: $tenant}) RETURN count(m) AS episodes }
CALL () { MATCH (m:Memory:Fact {tenant: $tenant}) RETURN count(m) AS facts }
CALL () { MATCH (m:Memory:Summary {tenant: $tenant}) RETURN count(m) AS summaries }
CALL () { MATCH (e:Entity {tenant: $tenant}) RETURN count(e) AS entities }
CALL () { MATCH (:Memory {tenant: $tenant})-[r:CAUSED_BY]->() RETURN count(r) AS caused_by }
CALL () { MATCH (:Memory {tenant: $tenant})-[r:SUPERSEDES]->() RETURN count(r) AS supersedes }
CALL () { MATCH (:Memory {tenant: $tenant})-[r:NEXT]->() RETURN count(r) AS next }
CALL () { MATCH (:Memory {tenant: $tenant})-[r:MENTIONS]->() RETURN count(r) AS mentions }
RETURN memories, episodes, facts, summaries, entities, caused_by, supersedes, next, mentions
