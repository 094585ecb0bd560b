// name: lifecycle/clear_tombstones
// Remove the tombstones of the given ids (a forgotten record ingested again on purpose, with force).
// params: $tenant (string), $ids (list of strings)
// returns: removed
:param tenant => 'demo';
:param ids => ['browser-forgotten'];
UNWIND $ids AS wanted
MATCH (t:Tombstone {tenant: $tenant, id: wanted})
DELETE t
RETURN count(t) AS removed
