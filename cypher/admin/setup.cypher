// name: admin/setup
// What a connection reads before its first query of a tenant, in one round trip: the server's components
// (version, edition: its generation), which of kgmem's schema versions for the two generations is recorded
// (the :KgmemSchema node admin/schema_version_set writes), the tenant's stored embedding model and the
// tenant's version (recall/tenant_version's: how many memories up to $limit + 1, the last recorded). The index
// states are read by admin/index_states (SHOW INDEXES cannot run inside another statement).
// params: $versions (list of strings: the schema version of each server generation), $tenant (string),
//         $limit (int)
// returns: components (list of {name, version, edition}), applied (list of the recorded schema versions among
//          $versions), embedding_model (string or null), memories (int), last (datetime or null)
:param versions => ['no-such-schema-version'];
:param tenant => 'demo';
:param limit => 2000;
CALL dbms.components() YIELD name, versions, edition
WITH collect({name: name, version: versions[0], edition: edition}) AS components
CALL () {
  MATCH (s:KgmemSchema)
  WHERE s.version IN $versions
  RETURN collect(DISTINCT s.version) AS applied
}
CALL () {
  OPTIONAL MATCH (m:Memory {tenant: $tenant})
  WHERE m.embedding_model IS NOT NULL
  WITH m LIMIT 1
  RETURN m.embedding_model AS embedding_model
}
CALL () {
  MATCH (m:Memory {tenant: $tenant})
  WITH m LIMIT $limit + 1
  RETURN count(m) AS memories, max(m.recorded_at) AS last
}
RETURN components, applied, embedding_model, memories, last
