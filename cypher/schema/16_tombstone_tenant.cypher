// name: schema/16_tombstone_tenant
// Range index on the tenant of tombstones (the forgotten-record check on every ingest).
// params: none
// returns: nothing
CREATE INDEX tombstone_tenant IF NOT EXISTS
FOR (t:Tombstone) ON (t.tenant)
