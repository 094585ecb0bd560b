// name: recall/candidates
// All three channels in one round trip, each after the eligibility filters (tenant, not merged, user, kinds,
// time window, as-of, current-only), plus what a hit shows:
//   vector  — $vector_fetch nearest from the HNSW index, kept when eligible, best $depth;
//   keyword — $keyword_fetch best from the fulltext index for $lucene (escaped user words; null = skip);
//   entity  — entities named in the question (the entity matcher of kgmem/query/eligibility.py) → memories
//             mentioning them, by entities matched, then cosine.
// The eligibility rule and the entity matcher are expanded from kgmem/query/eligibility.py between the cog
// markers (python -m kgmem.query.eligibility rewrites them; a test fails when they are stale).
// Details are the hit map of kgmem/query/eligibility.py (times as [epoch seconds, nanoseconds], recorded
// causes for why, cosine for abstention). The caller widens a channel with the per-channel statements when too few candidates survive.
// params: $vector (list of 384 floats), $vector_fetch (int), $lucene (string or null), $keyword_fetch (int),
//         $question_key (string), $named_keys (list of strings), $max_mentions (int), $depth (int),
//         $tenant (string), $user (string or null), $start (datetime or null), $end (datetime or null),
//         $at (datetime or null), $include_superseded (bool), $kinds (list of strings or null)
// returns: vector_fetched, vector_eligible, vector (list of {id, score}), keyword_fetched, keyword_eligible,
//          keyword (list of {id, score}),
//          entities (list of {key, name}), entity (list of {id, score}), details (list of maps)
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.embedding LIMIT 1 }[0];
:param vector_fetch => 60;
:param lucene => 'ravi onboarding';
:param keyword_fetch => 60;
:param question_key => ' what did ravi say about onboarding ';
:param named_keys => ['ravi'];
:param max_mentions => 2000;
:param depth => 20;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
CALL () {
  CALL db.index.vector.queryNodes('memory_embedding', $vector_fetch, $vector) YIELD node, score
  WITH collect({m: node, score: score}) AS rows
  WITH size(rows) AS fetched,
         [row IN rows WHERE
            // [[[cog from kgmem.query.eligibility import cog_where; cog_where('row.m', '            ') ]]]
            row.m.tenant = $tenant
            AND row.m.merged_into IS NULL
            AND ($user IS NULL OR row.m.user = $user)
            AND ($kinds IS NULL OR row.m.kind IN $kinds)
            AND ($start IS NULL OR row.m.at >= $start)
            AND ($end IS NULL OR row.m.at < $end)
            AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
                 OR ($at IS NOT NULL AND row.m.at <= $at
                     AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
            // [[[end]]]
          | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS vector_fetched, size(eligible) AS vector_eligible, eligible[0..$depth] AS vector
}
CALL () {
  OPTIONAL CALL db.index.fulltext.queryNodes('memory_text', coalesce($lucene, 'kgmem-no-keyword-query'),
                                             {limit: CASE WHEN $lucene IS NULL THEN 1 ELSE $keyword_fetch END})
  YIELD node, score
  WITH [r IN collect({m: node, score: score}) WHERE $lucene IS NOT NULL AND r.m IS NOT NULL] AS rows
  WITH size(rows) AS fetched,
         [row IN rows WHERE
            // [[[cog from kgmem.query.eligibility import cog_where; cog_where('row.m', '            ') ]]]
            row.m.tenant = $tenant
            AND row.m.merged_into IS NULL
            AND ($user IS NULL OR row.m.user = $user)
            AND ($kinds IS NULL OR row.m.kind IN $kinds)
            AND ($start IS NULL OR row.m.at >= $start)
            AND ($end IS NULL OR row.m.at < $end)
            AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
                 OR ($at IS NOT NULL AND row.m.at <= $at
                     AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
            // [[[end]]]
          | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS keyword_fetched, size(eligible) AS keyword_eligible, eligible[0..$depth] AS keyword
}
// [[[cog from kgmem.query.eligibility import cog_entity_channel; cog_entity_channel() ]]]
CALL () {
  OPTIONAL CALL db.index.fulltext.queryNodes('entity_names', coalesce($lucene, 'kgmem-no-keyword-query'), {limit: 25})
  YIELD node AS e
  WITH e WHERE e IS NOT NULL AND $lucene IS NOT NULL AND e.tenant = $tenant
    AND $question_key CONTAINS (' ' + e.key + ' ')
    AND (coalesce(e.named_mentions, 0) > 0 OR e.key IN $named_keys)
    AND COUNT { (e)<-[:MENTIONS]-(:Memory) } <= $max_mentions
  RETURN collect(DISTINCT e) AS ents
}
CALL (ents) {
  UNWIND ents AS e
  MATCH (e)<-[:MENTIONS]-(m:Memory)
  WHERE m.tenant = $tenant
        AND m.merged_into IS NULL
        AND ($user IS NULL OR m.user = $user)
        AND ($kinds IS NULL OR m.kind IN $kinds)
        AND ($start IS NULL OR m.at >= $start)
        AND ($end IS NULL OR m.at < $end)
        AND (($at IS NULL AND ($include_superseded OR m.valid_to IS NULL))
             OR ($at IS NOT NULL AND m.at <= $at
                 AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $at)))
  WITH m, count(DISTINCT e) AS matched
  WITH m, matched, vector.similarity.cosine(m.embedding, $vector) AS score
  ORDER BY matched DESC, score DESC, m.id ASC
  LIMIT $depth
  RETURN collect({id: m.id, score: score}) AS entity
}
// [[[end]]]
WITH vector_fetched, vector_eligible, vector, keyword_fetched, keyword_eligible, keyword, entity,
     [e IN ents | {key: e.key, name: e.name}] AS entities
CALL (vector, keyword, entity) {
  UNWIND vector + keyword + entity AS hit
  WITH DISTINCT hit.id AS wanted
  MATCH (m:Memory {tenant: $tenant, id: wanted})
  RETURN collect(
  // [[[cog from kgmem.query.eligibility import cog_hit_map; cog_hit_map('    ', ') AS details') ]]]
  {id: m.id, text: m.text, at_ts: [m.at.epochSeconds, m.at.nanosecond], kind: m.kind, origin: m.origin,
   subject: m.subject, predicate: m.predicate, object: m.object, polarity: m.polarity,
   valid_to_ts: CASE WHEN m.valid_to IS NULL THEN null ELSE [m.valid_to.epochSeconds, m.valid_to.nanosecond] END,
   stream: m.stream, user: m.user, causes: COUNT { (m)-[:CAUSED_BY]->(:Memory) },
   similarity: CASE WHEN m.embedding IS NULL THEN null ELSE vector.similarity.cosine(m.embedding, $vector) END}) AS details
  // [[[end]]]
}
RETURN vector_fetched, vector_eligible, vector, keyword_fetched, keyword_eligible, keyword, entities, entity, details
