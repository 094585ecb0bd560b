// name: ingest/link_derived
// Lineage: (derived)-[:DERIVED_FROM {transform}]->(source), e.g. a compiled fact to its episode.
// params: $tenant (string), $links (list of maps: id, source, transform)
// returns: created (count of new edges)
:param tenant => 'demo';
:param links => [];
UNWIND $links AS link
MATCH (d:Memory {tenant: $tenant, id: link.id})
MATCH (s:Memory {tenant: $tenant, id: link.source})
OPTIONAL MATCH (d)-[old:DERIVED_FROM]->(s)
MERGE (d)-[r:DERIVED_FROM]->(s)
ON CREATE SET r.transform = link.transform
RETURN count(CASE WHEN old IS NULL THEN 1 END) AS created
