// name: lifecycle/expired
// Record memories whose retention has run out: for each class with a time to live, those recorded at or
// before the class's cutoff (now − TTL). A memory without a retention class counts as 'standard'.
// params: $tenant (string), $cutoffs (list of maps: retention (string), before (datetime))
// returns: id, retention, recorded_at, kind
:param tenant => 'demo';
:param cutoffs => [{retention: 'ephemeral', before: datetime() - duration('P1D')}, {retention: 'short', before: datetime() - duration('P30D')}];
UNWIND $cutoffs AS c
MATCH (m:Memory {tenant: $tenant})
WHERE coalesce(m.retention, 'standard') = c.retention AND m.recorded_at <= c.before
  AND coalesce(m.origin, 'record') = 'record'
RETURN m.id AS id, coalesce(m.retention, 'standard') AS retention, m.recorded_at AS recorded_at, m.kind AS kind
ORDER BY recorded_at, id
