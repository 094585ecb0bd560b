// name: admin/schema_version
// Whether kgmem's schema of this version (a hash of the kgmem version and the texts of cypher/schema/) was
// applied to this database: the one cheap lookup before the first read or write of a process. Written by
// admin/schema_version_set after `kgmem init` (or the first use) applied cypher/schema/; a missing node or
// another version makes kgmem apply the schema again. The node has no tenant: deleting tenants keeps it.
// params: $version (string)
// returns: applied (count of :KgmemSchema nodes with that version: 0 or 1)
:param version => 'no-such-schema-version';
MATCH (s:KgmemSchema)
WHERE s.version = $version
RETURN count(s) AS applied
