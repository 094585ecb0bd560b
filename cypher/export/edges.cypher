// name: export/edges
// Every relationship that starts at a memory of the tenant: type, endpoints (ids, or the entity key for
// MENTIONS) and properties, in a stable order: the second half of an export. The hint keeps the plan on the
// tenant index (on a small database the planner otherwise scans every node for the unlabelled end).
// params: $tenant (string)
// returns: type, from, to, to_kind ('memory' or 'entity'), props (map)
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})-[r]->(x)
USING INDEX m:Memory(tenant)
WHERE x.tenant = $tenant
RETURN type(r) AS type, m.id AS from,
       CASE WHEN x:Entity THEN x.key ELSE x.id END AS to,
       CASE WHEN x:Entity THEN 'entity' ELSE 'memory' END AS to_kind,
       properties(r) AS props
ORDER BY type, from, to
