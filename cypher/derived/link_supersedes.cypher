// name: derived/link_supersedes
// Inferred supersession from plain text: (newer)-[:SUPERSEDES {inferred: true, confidence, by, transform,
// cue}]->(older) for each link, and the pass's mark on every memory it read ($checked), so that a re-run after a
// crash between the write and this pass finds the memories it has not done. An explicit SUPERSEDES (a slot's
// version chain) is never touched; a link already there is updated in place.
// params: $tenant (string), $links (list of maps: newer, older, confidence (float), by (string), cue (string)),
//         $transform (string), $checked (list of strings)
// returns: created (count of new edges)
:param tenant => 'demo';
:param links => [];
:param transform => 'supersession/v3';
:param checked => [];
CALL () {
  UNWIND $links AS link
  MATCH (newer:Memory {tenant: $tenant, id: link.newer})
  MATCH (older:Memory {tenant: $tenant, id: link.older})
  WHERE newer.at > older.at
  OPTIONAL MATCH (newer)-[old:SUPERSEDES]->(older)
  WITH newer, older, link, old WHERE old IS NULL OR coalesce(old.inferred, false)
  MERGE (newer)-[r:SUPERSEDES]->(older)
  SET r.inferred = true, r.confidence = link.confidence, r.by = link.by, r.transform = $transform, r.cue = link.cue
  RETURN count(CASE WHEN old IS NULL THEN 1 END) AS created
}
CALL () {
  UNWIND $checked AS id
  MATCH (m:Memory {tenant: $tenant, id: id})
  SET m.supersession = $transform
  RETURN count(m) AS marked
}
RETURN created
