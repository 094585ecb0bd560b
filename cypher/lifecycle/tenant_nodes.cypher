// name: lifecycle/tenant_nodes
// How many nodes of each kind a tenant holds (import needs an empty tenant).
// params: $tenant (string)
// returns: memories, entities, tombstones, runs
:param tenant => 'demo';
CALL () { MATCH (m:Memory {tenant: $tenant}) RETURN count(m) AS memories }
CALL () { MATCH (e:Entity {tenant: $tenant}) RETURN count(e) AS entities }
CALL () { MATCH (t:Tombstone {tenant: $tenant}) RETURN count(t) AS tombstones }
CALL () { MATCH (r:ConsolidationRun {tenant: $tenant}) RETURN count(r) AS runs }
RETURN memories, entities, tombstones, runs
