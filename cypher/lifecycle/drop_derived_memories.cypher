// name: lifecycle/drop_derived_memories
// Delete the tenant's derived memories of the given origins ('compiled', 'consolidated') with their edges,
// and release every record from merged_into. Records (origin 'record') are never deleted here.
// params: $tenant (string), $origins (list of strings)
// returns: removed
:param tenant => 'demo';
:param origins => ['compiled', 'consolidated'];
CALL () {
  MATCH (s:Memory {tenant: $tenant})
  WHERE s.merged_into IS NOT NULL
  REMOVE s.merged_into
}
MATCH (m:Memory {tenant: $tenant})
WHERE m.origin IN $origins AND m.origin <> 'record'
DETACH DELETE m
RETURN count(m) AS removed
