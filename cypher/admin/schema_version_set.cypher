// name: admin/schema_version_set
// Record that kgmem's schema of this version was applied and every index is ONLINE (run by `kgmem init` and
// by the first use of a database after cypher/schema/ was applied), replacing the record of any other version.
// params: $version (string), $kgmem_version (string), $schema_files (integer)
// returns: version (string)
:param version => 'no-such-schema-version';
:param kgmem_version => '0.0.0';
:param schema_files => 0;
MERGE (s:KgmemSchema {version: $version})
SET s.kgmem_version = $kgmem_version, s.schema_files = $schema_files, s.applied_at = datetime()
WITH s
CALL (s) {
  MATCH (old:KgmemSchema)
  WHERE old <> s
  DETACH DELETE old
}
RETURN s.version AS version
