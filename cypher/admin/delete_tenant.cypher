// name: admin/delete_tenant
// Delete everything of one tenant (memories, entities, tombstones, runs), in batches. Irreversible.
// params: $tenant (string)
// returns: deleted (count of nodes)
:param tenant => 'scratch-tenant-to-delete';
CALL () {
  MATCH (n:Memory {tenant: $tenant}) RETURN n
  UNION
  MATCH (n:Entity {tenant: $tenant}) RETURN n
  UNION
  MATCH (n:Tombstone {tenant: $tenant}) RETURN n
  UNION
  MATCH (n:ConsolidationRun {tenant: $tenant}) RETURN n
}
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 2000 ROWS
RETURN count(*) AS deleted
