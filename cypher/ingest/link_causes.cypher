// name: ingest/link_causes
// (effect)-[:CAUSED_BY {inferred, confidence, source}]->(cause). An explicit link (inferred: false)
// replaces an inferred one between the same two memories; an inferred link never weakens an explicit one.
// params: $tenant (string), $links (list of maps: effect, cause, inferred (bool), confidence (float), source (string))
// returns: created (count of new edges)
:param tenant => 'demo';
:param links => [];
UNWIND $links AS link
MATCH (effect:Memory {tenant: $tenant, id: link.effect})
MATCH (cause:Memory {tenant: $tenant, id: link.cause})
OPTIONAL MATCH (effect)-[old:CAUSED_BY]->(cause)
MERGE (effect)-[r:CAUSED_BY]->(cause)
ON CREATE SET r.inferred = link.inferred, r.confidence = link.confidence, r.source = link.source
ON MATCH SET
  r.inferred = r.inferred AND link.inferred,
  r.confidence = CASE WHEN link.inferred THEN r.confidence ELSE 1.0 END,
  r.source = CASE WHEN link.inferred THEN r.source ELSE link.source END
RETURN count(CASE WHEN old IS NULL THEN 1 END) AS created
