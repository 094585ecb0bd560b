// name: lifecycle/import_runs
// Restore exported consolidation runs into an empty tenant.
// params: $tenant (string), $rows (list of maps: id, props (map))
// returns: written
:param tenant => 'browser-import-demo';
:param rows => [{id: 'run-browser', props: {at: datetime(), params: '{}'}}];
UNWIND $rows AS row
CREATE (r:ConsolidationRun)
SET r = row.props, r.tenant = $tenant, r.id = row.id
RETURN count(r) AS written
