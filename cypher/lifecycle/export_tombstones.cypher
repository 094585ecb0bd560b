// name: lifecycle/export_tombstones
// Every tombstone of the tenant (id, content key, time, reason — no content), ordered by id.
// params: $tenant (string)
// returns: id, props (map)
:param tenant => 'demo';
MATCH (t:Tombstone {tenant: $tenant})
RETURN t.id AS id, properties(t) AS props
ORDER BY id
