// name: ingest/known_entities
// Every entity of the tenant with its aliases (so extraction recognises known spellings).
// params: $tenant (string)
// returns: key, name, aliases
:param tenant => 'demo';
MATCH (e:Entity {tenant: $tenant})
RETURN e.key AS key, e.name AS name, e.aliases AS aliases
