// name: lifecycle/write_tombstones
// Record that memories existed and were forgotten: one :Tombstone per (tenant, id) with the content key,
// when and why (reason 'forget' or 'expired') — never the content itself.
// params: $tenant (string), $rows (list of maps: id, content_key, forgotten_at (datetime), reason)
// returns: written
:param tenant => 'demo';
:param rows => [{id: 'browser-forgotten', content_key: 'abc', forgotten_at: datetime(), reason: 'forget'}];
UNWIND $rows AS row
MERGE (t:Tombstone {tenant: $tenant, id: row.id})
SET t.content_key = row.content_key, t.forgotten_at = row.forgotten_at, t.reason = row.reason
RETURN count(t) AS written
