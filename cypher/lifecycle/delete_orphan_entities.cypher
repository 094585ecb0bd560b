// name: lifecycle/delete_orphan_entities
// Remove entities that no memory mentions any more (with their CO_OCCURS edges): among the given keys,
// or all of the tenant's when $keys is null.
// params: $tenant (string), $keys (list of strings or null)
// returns: removed
:param tenant => 'demo';
:param keys => null;
MATCH (e:Entity {tenant: $tenant})
WHERE ($keys IS NULL OR e.key IN $keys) AND NOT EXISTS { (e)<-[:MENTIONS]-(:Memory) }
DETACH DELETE e
RETURN count(e) AS removed
