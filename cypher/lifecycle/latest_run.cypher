// name: lifecycle/latest_run
// The tenant's most recent consolidation run (its params drive re-derivation after forgetting, and rebuild).
// params: $tenant (string)
// returns: id, at, params (JSON string) — 0 or 1 row
:param tenant => 'demo';
MATCH (r:ConsolidationRun {tenant: $tenant})
RETURN r.id AS id, r.at AS at, r.params AS params
ORDER BY at DESC, id DESC
LIMIT 1
