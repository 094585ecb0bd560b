// name: derived/memory_ids
// Ids of every memory of a tenant recorded from a record (not compiled or consolidated), oldest first.
// params: $tenant (string)
// returns: id
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})
WHERE coalesce(m.origin, 'record') = 'record'
RETURN m.id AS id
ORDER BY m.at, m.id
