// name: lifecycle/co_occurring
// Entities that co-occur with any of the given entities (not themselves among them), strongest first: the
// summed CO_OCCURS weight, the number of memories behind it and which given keys they co-occur with.
// params: $tenant (string), $keys (list of entity keys), $limit (int)
// returns: key, name, weight, count, via (list of keys)
:param tenant => 'demo';
:param keys => ['ravi'];
:param limit => 20;
MATCH (a:Entity {tenant: $tenant})-[r:CO_OCCURS]-(b:Entity)
WHERE a.key IN $keys AND NOT b.key IN $keys AND b.tenant = $tenant
WITH b, sum(r.weight) AS weight, sum(r.count) AS count, collect(DISTINCT a.key) AS via
RETURN b.key AS key, b.name AS name, weight, count, via
ORDER BY weight DESC, key ASC
LIMIT $limit
