// name: schema/17_run_tenant
// Range index on the tenant of consolidation runs.
// params: none
// returns: nothing
CREATE INDEX run_tenant IF NOT EXISTS
FOR (r:ConsolidationRun) ON (r.tenant)
