// name: lifecycle/export_runs
// Every consolidation run of the tenant with its properties, ordered by id.
// params: $tenant (string)
// returns: id, props (map)
:param tenant => 'demo';
MATCH (r:ConsolidationRun {tenant: $tenant})
RETURN r.id AS id, properties(r) AS props
ORDER BY id
