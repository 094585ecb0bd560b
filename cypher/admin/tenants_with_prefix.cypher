// name: admin/tenants_with_prefix
// The tenants whose name starts with $prefix, with how many nodes each holds (memories, entities,
// tombstones, consolidation runs): what `kgmem admin cleanup --prefix` would delete.
// params: $prefix (string)
// returns: tenant, nodes
:param prefix => 'test-';
CALL () {
  MATCH (n:Memory) WHERE n.tenant STARTS WITH $prefix RETURN n.tenant AS tenant
  UNION ALL
  MATCH (n:Entity) WHERE n.tenant STARTS WITH $prefix RETURN n.tenant AS tenant
  UNION ALL
  MATCH (n:Tombstone) WHERE n.tenant STARTS WITH $prefix RETURN n.tenant AS tenant
  UNION ALL
  MATCH (n:ConsolidationRun) WHERE n.tenant STARTS WITH $prefix RETURN n.tenant AS tenant
}
RETURN tenant, count(*) AS nodes
ORDER BY tenant
