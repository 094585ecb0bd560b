// name: lifecycle/import_tombstones
// Restore exported tombstones into an empty tenant.
// params: $tenant (string), $rows (list of maps: id, props (map))
// returns: written
:param tenant => 'browser-import-demo';
:param rows => [{id: 'browser-forgotten', props: {content_key: 'abc', forgotten_at: datetime(), reason: 'forget'}}];
UNWIND $rows AS row
CREATE (t:Tombstone)
SET t = row.props, t.tenant = $tenant, t.id = row.id
RETURN count(t) AS written
