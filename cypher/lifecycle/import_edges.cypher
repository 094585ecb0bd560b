// name: lifecycle/import_edges
// Restore exported relationships with their properties. Endpoints are memories (by id) or entities (by key)
// of the tenant; the type must be one of kgmem's (SUPERSEDES, CAUSED_BY, NEXT, MENTIONS, DERIVED_FROM,
// CO_OCCURS) — any other creates nothing, and the caller compares the count.
// params: $tenant (string), $rows (list of maps: type, from, from_kind, to, to_kind, props (map))
// returns: created
:param tenant => 'demo';
:param rows => [];
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (m:Memory {tenant: $tenant, id: row.from}) WHERE row.from_kind = 'memory'
  OPTIONAL MATCH (e:Entity {tenant: $tenant, key: row.from}) WHERE row.from_kind = 'entity'
  RETURN coalesce(m, e) AS a
}
CALL (row) {
  OPTIONAL MATCH (m:Memory {tenant: $tenant, id: row.to}) WHERE row.to_kind = 'memory'
  OPTIONAL MATCH (e:Entity {tenant: $tenant, key: row.to}) WHERE row.to_kind = 'entity'
  RETURN coalesce(m, e) AS b
}
WITH row, a, b
WHERE a IS NOT NULL AND b IS NOT NULL
  AND row.type IN ['SUPERSEDES', 'CAUSED_BY', 'NEXT', 'MENTIONS', 'DERIVED_FROM', 'CO_OCCURS']
FOREACH (_ IN CASE WHEN row.type = 'SUPERSEDES' THEN [1] ELSE [] END | CREATE (a)-[r:SUPERSEDES]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'CAUSED_BY' THEN [1] ELSE [] END | CREATE (a)-[r:CAUSED_BY]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'NEXT' THEN [1] ELSE [] END | CREATE (a)-[r:NEXT]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'MENTIONS' THEN [1] ELSE [] END | CREATE (a)-[r:MENTIONS]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'DERIVED_FROM' THEN [1] ELSE [] END | CREATE (a)-[r:DERIVED_FROM]->(b) SET r = row.props)
FOREACH (_ IN CASE WHEN row.type = 'CO_OCCURS' THEN [1] ELSE [] END | CREATE (a)-[r:CO_OCCURS]->(b) SET r = row.props)
RETURN count(*) AS created
