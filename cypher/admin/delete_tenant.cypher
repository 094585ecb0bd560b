// name: admin/delete_tenant
// Delete everything of one tenant (memories, entities, tombstones, runs), in batches. Irreversible.
// params: $tenant (string)
// returns: deleted (count of nodes)
:param tenant => 'scratch-tenant-to-delete';
MATCH (n)
WHERE (n:Memory OR n:Entity OR n:Tombstone OR n:ConsolidationRun) AND n.tenant = $tenant
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 2000 ROWS
RETURN count(*) AS deleted
