// name: recall/details
// What a hit shows, for the candidates recall keeps, in the tenant only: the hit map of kgmem/store/rules.py for
// the ids of $full (the best 2k: all ids when $full is null), the pool map (names, topic cosine) for the others
// (the candidates the confidence reads).
// params: $tenant (string), $ids (list of strings), $full (list of strings or null), $vector (list of 384 floats), $topic_vector (list of 384 floats or null: the question without its names), $entity_keys (list of strings),
//         $known (map of id → the normalised cosine to $vector a channel already scored, or {}),
//         $user (string or null), $start (datetime or null), $end (datetime or null), $at (datetime or null),
//         $include_superseded (bool), $kinds (list of strings or null) — the eligibility rule's, for superseded_by
// returns: one row, hits (a list of maps in no set order; for an id of $full the hit map: id, text, at_ts, kind,
//          origin, subject, predicate, object, polarity, valid_to_ts, stream, user, causes, mentions, similarity,
//          context_similarity, superseded_by (list of {id, confidence, inferred, cue, by}: the newer memories
//          the query may see that retired it); for another id the pool map: id, text, at_ts, origin, mentions,
//          names, topic_similarity)
:param tenant => 'demo';
:param ids => ['img-root'];
:param full => null;
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.embedding LIMIT 1 }[0];
:param topic_vector => null;
:param entity_keys => [];
:param known => {};
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
WITH
// [[[cog from kgmem.store.rules import cog_details_map; cog_details_map('', ' AS hit') ]]]
CASE WHEN $full IS NULL OR m.id IN $full THEN
  {id: m.id, text: m.text, at_ts: [m.at.epochSeconds, m.at.nanosecond], kind: m.kind, origin: m.origin,
   subject: m.subject, predicate: m.predicate, object: m.object, polarity: m.polarity,
   valid_to_ts: CASE WHEN m.valid_to IS NULL THEN null ELSE [m.valid_to.epochSeconds, m.valid_to.nanosecond] END,
   stream: m.stream, user: m.user, causes: COUNT { (m)-[:CAUSED_BY]->(:Memory) },
   mentions: [(m)-[:MENTIONS]->(e:Entity) WHERE e.key IN $entity_keys | e.key],
   names: [(m)-[:MENTIONS]->(e:Entity) WHERE coalesce(e.named_mentions, 0) > 0 | e.key][0..8],
   similarity: CASE WHEN $known[m.id] IS NOT NULL THEN $known[m.id] WHEN m.embedding IS NULL THEN null
               ELSE vector.similarity.cosine(m.embedding, $vector) END,
   context_similarity: CASE WHEN m.context_embedding IS NULL THEN null
                       ELSE vector.similarity.cosine(m.context_embedding, $vector) END,
   topic_similarity: CASE WHEN m.embedding IS NULL OR $topic_vector IS NULL THEN null
                     ELSE vector.similarity.cosine(m.embedding, $topic_vector) END,
   superseded_by: [(m)<-[sr:SUPERSEDES]-(s:Memory) WHERE s.tenant = $tenant AND s.merged_into IS NULL AND ($user IS NULL OR s.user = $user) AND ($kinds IS NULL OR s.kind IN $kinds) AND ($start IS NULL OR s.at >= $start) AND ($end IS NULL OR s.at < $end) AND (($at IS NULL AND ($include_superseded OR s.valid_to IS NULL)) OR ($at IS NOT NULL AND s.at <= $at AND ($include_superseded OR s.valid_to IS NULL OR s.valid_to > $at)))
                   | {id: s.id, confidence: coalesce(sr.confidence, 1.0), inferred: coalesce(sr.inferred, false),
                      cue: sr.cue, by: sr.by}]
                  + [(m)<-[:DERIVED_FROM]-(:Fact)<-[:SUPERSEDES]-(:Fact)-[:DERIVED_FROM]->(s:Memory)
                     WHERE s <> m AND s.tenant = $tenant AND s.merged_into IS NULL AND ($user IS NULL OR s.user = $user) AND ($kinds IS NULL OR s.kind IN $kinds) AND ($start IS NULL OR s.at >= $start) AND ($end IS NULL OR s.at < $end) AND (($at IS NULL AND ($include_superseded OR s.valid_to IS NULL)) OR ($at IS NOT NULL AND s.at <= $at AND ($include_superseded OR s.valid_to IS NULL OR s.valid_to > $at)))
                     | {id: s.id, confidence: 1.0, inferred: false, cue: null, by: 'slot'}]}
ELSE
  {id: m.id, text: m.text, at_ts: [m.at.epochSeconds, m.at.nanosecond], origin: m.origin,
   mentions: [(m)-[:MENTIONS]->(e:Entity) WHERE e.key IN $entity_keys | e.key],
   names: [(m)-[:MENTIONS]->(e:Entity) WHERE coalesce(e.named_mentions, 0) > 0 | e.key][0..8],
   topic_similarity: CASE WHEN $topic_vector IS NULL AND $known[m.id] IS NOT NULL THEN $known[m.id]
                     WHEN m.embedding IS NULL THEN null
                     ELSE vector.similarity.cosine(m.embedding, coalesce($topic_vector, $vector)) END}
END AS hit
// [[[end]]]
// one row: the maps as a list (a record per map cost the driver ~1.2 ms per recall of 60 maps)
RETURN collect(hit) AS hits
