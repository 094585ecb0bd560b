// name: export/entities
// Every entity of a tenant with its properties, ordered by key.
// params: $tenant (string)
// returns: key, props (map)
:param tenant => 'demo';
MATCH (e:Entity {tenant: $tenant})
RETURN e.key AS key, properties(e) AS props
ORDER BY key
