// name: lifecycle/export_entity_edges
// Every relationship between two entities of the tenant (CO_OCCURS) with its properties, for an export.
// params: $tenant (string)
// returns: type, from, to, props (map)
:param tenant => 'demo';
MATCH (a:Entity {tenant: $tenant})-[r]->(b:Entity)
WHERE b.tenant = $tenant
RETURN type(r) AS type, a.key AS from, b.key AS to, properties(r) AS props
ORDER BY type, from, to
