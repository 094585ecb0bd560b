// name: lifecycle/drop_chains
// Remove every NEXT and SUPERSEDES edge between the tenant's memories (rebuild lays them again).
// params: $tenant (string)
// returns: removed
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})-[r:NEXT|SUPERSEDES]->(:Memory)
DELETE r
RETURN count(r) AS removed
