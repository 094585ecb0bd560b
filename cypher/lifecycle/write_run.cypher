// name: lifecycle/write_run
// Record one consolidation run: a :ConsolidationRun with its id, time, counts and params (a JSON string).
// params: $tenant (string), $run (map: id, at (datetime), counts (ints), params (string))
// returns: id
:param tenant => 'demo';
:param run => {id: 'run-browser', at: datetime(), merges_created: 0, summaries_created: 0, params: '{}'};
CREATE (r:ConsolidationRun {tenant: $tenant, id: $run.id})
SET r += $run
RETURN r.id AS id
