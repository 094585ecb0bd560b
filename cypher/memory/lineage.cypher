// name: memory/lineage
// A memory's place in what replaced what: the memories it retired and those that retired it, along
// SUPERSEDES (a slot's version chain, or inferred from plain text: inferred, confidence, by, cue, transform),
// $depth steps each way, oldest first.
// params: $tenant (string), $id (string), $depth (int)
// returns: id, text, at, relation (self | retired | retired_by), steps, edges (list of the SUPERSEDES edges on
//          the way: {newer, older, inferred, confidence, by, cue, transform})
:param tenant => 'demo';
:param id => 'c2';
:param depth => 5;
MATCH (m:Memory {tenant: $tenant, id: $id})
CALL (m) {
  RETURN m AS other, 'self' AS relation, 0 AS steps, [] AS edges
  UNION
  MATCH p = (m)-[:SUPERSEDES*1..5]->(other:Memory)
  WHERE length(p) <= $depth AND all(x IN nodes(p) WHERE x.tenant = $tenant)
  RETURN other, 'retired' AS relation, length(p) AS steps,
         [r IN relationships(p) | {newer: startNode(r).id, older: endNode(r).id, inferred: coalesce(r.inferred, false),
                                   confidence: coalesce(r.confidence, 1.0), by: coalesce(r.by, 'slot'), cue: r.cue,
                                   transform: r.transform}] AS edges
  UNION
  MATCH p = (m)<-[:SUPERSEDES*1..5]-(other:Memory)
  WHERE length(p) <= $depth AND all(x IN nodes(p) WHERE x.tenant = $tenant)
  RETURN other, 'retired_by' AS relation, length(p) AS steps,
         [r IN relationships(p) | {newer: startNode(r).id, older: endNode(r).id, inferred: coalesce(r.inferred, false),
                                   confidence: coalesce(r.confidence, 1.0), by: coalesce(r.by, 'slot'), cue: r.cue,
                                   transform: r.transform}] AS edges
}
WITH other, relation, min(steps) AS steps, head(collect(edges)) AS edges
RETURN other.id AS id, other.text AS text, other.at AS at, relation, steps, edges
ORDER BY other.at ASC, other.id ASC
