// name: derived/link_inferred_causes
// Inferred causes read from plain text: (effect)-[:CAUSED_BY {inferred: true, confidence, source}]->(cause) for
// each link (an explicit link between the same two memories is never weakened), cause_in_text on each memory
// that states its own cause, and the pass's mark on every memory it read ($checked), so that a re-run after a
// crash between the write and this pass finds the memories it has not done.
// params: $tenant (string), $links (list of maps: effect, cause, confidence (float), source (string)),
//         $selves (list of maps: id, confidence), $transform (string), $checked (list of strings)
// returns: created (count of new edges)
:param tenant => 'demo';
:param links => [];
:param selves => [];
:param transform => 'causes/v2';
:param checked => [];
CALL () {
  UNWIND $links AS link
  MATCH (effect:Memory {tenant: $tenant, id: link.effect})
  MATCH (cause:Memory {tenant: $tenant, id: link.cause})
  OPTIONAL MATCH (effect)-[old:CAUSED_BY]->(cause)
  MERGE (effect)-[r:CAUSED_BY]->(cause)
  ON CREATE SET r.inferred = true, r.confidence = link.confidence, r.source = link.source
  ON MATCH SET r.confidence = CASE WHEN coalesce(r.inferred, false) THEN link.confidence ELSE r.confidence END,
               r.source = CASE WHEN coalesce(r.inferred, false) THEN link.source ELSE r.source END
  RETURN count(CASE WHEN old IS NULL THEN 1 END) AS created
}
CALL () {
  UNWIND $selves AS own
  MATCH (m:Memory {tenant: $tenant, id: own.id})
  SET m.cause_in_text = own.confidence
  RETURN count(m) AS marked
}
CALL () {
  UNWIND $checked AS id
  MATCH (m:Memory {tenant: $tenant, id: id})
  SET m.causes = $transform
  RETURN count(m) AS checked
}
RETURN created
