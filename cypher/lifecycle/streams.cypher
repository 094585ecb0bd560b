// name: lifecycle/streams
// Every stream of the tenant with the valid time of its first memory (to rebuild all NEXT chains).
// params: $tenant (string)
// returns: stream, from_at
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})
WHERE m.stream IS NOT NULL
RETURN m.stream AS stream, min(m.at) AS from_at
ORDER BY stream
