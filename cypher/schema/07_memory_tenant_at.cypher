// name: schema/07_memory_tenant_at
// Range index for the tenant filter combined with valid time (as-of, time ranges).
// params: none
// returns: nothing
CREATE INDEX memory_tenant_at IF NOT EXISTS
FOR (m:Memory) ON (m.tenant, m.at)
