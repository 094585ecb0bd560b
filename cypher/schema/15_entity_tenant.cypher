// name: schema/15_entity_tenant
// Range index on the tenant of entities (per-tenant entity lists, exports).
// params: none
// returns: nothing
CREATE INDEX entity_tenant IF NOT EXISTS
FOR (e:Entity) ON (e.tenant)
