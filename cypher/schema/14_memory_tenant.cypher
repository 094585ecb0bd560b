// name: schema/14_memory_tenant
// Range index on the tenant alone: every per-tenant statement (exports, rebuilds, counts) seeks it instead
// of scanning every memory of every tenant (composite indexes serve only queries that constrain all their
// properties).
// params: none
// returns: nothing
CREATE INDEX memory_tenant IF NOT EXISTS
FOR (m:Memory) ON (m.tenant)
