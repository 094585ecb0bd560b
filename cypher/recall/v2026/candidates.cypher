// name: recall/v2026/candidates
// Neo4j 2026.x: as recall/candidates, but the vector channels search inside the index by tenant (SEARCH ... WHERE
// m.tenant = $tenant over indexes created WITH [m.tenant]), so $vector_fetch are the tenant's nearest.
// Every channel in one round trip, each after the eligibility filters (tenant, not merged, user, kinds, time
// window, as-of, current-only), plus what a hit shows:
//   vector, context_vector, wide_vector — $vector_fetch nearest from the HNSW index over the memory's own
//             vector / its derived stream context (kgmem/derived/context.py), kept when eligible, best $depth;
//   keyword, context_keyword, window_keyword — $keyword_fetch best from the fulltext index over the memory's
//             text / its stream context for $lucene (escaped user words; null = skip) with the tenant's clause
//             $tenant_scope required (each index holds the tenant: Lucene returns the tenant's only), or — $given not
//             null — the ranking a small tenant's own BM25 gave ($given.<channel>: ids and scores, best first);
//   entity  — entities named in the question (the entity matcher) → memories mentioning them, by entities
//             matched, then the newest.
// Only the channels named in $channels run (the others return 0 fetched and an empty list). The entities are
// matched whenever $key_ngrams is not null (a null skips the entity channel), so that every candidate's map says
// which of them it mentions, also in a call that runs only the vector channels beside one that runs the others
// (kgmem.query.plan); their memories are read only when 'entity' is in $channels.
// The eligibility rule, the channel blocks, the entity matcher and the candidate map are expanded from
// kgmem/store/rules.py between the cog markers (scripts/gen_cypher.py rewrites them; a test fails when
// they are stale). The caller widens a channel with recall/vector or recall/keyword when too few survive.
// params: $vector (list of 384 floats), $vector_fetch (int: the nearest kept per vector index),
//         $vector_search (int: how many the index is asked for — at least the tenant's size when it is small,
//         kgmem.query.plan.search_size, so that it scores every vector of the tenant and the nearest do
//         not depend on what else it holds),
//         $vector_exact (bool; not read on 2026.x, whose index filters by tenant), $lucene (string or null),
//         $tenant_scope (string: kgmem.query.lucene.tenant_scope), $keyword_fetch (int),
//         $key_ngrams (list of strings or null: every run of up to 8 words of the question's entity key),
//         $named_keys (list of strings), $max_mentions (int), $depth (int),
//         $tenant (string), $user (string or null), $start (datetime or null), $end (datetime or null),
//         $at (datetime or null), $include_superseded (bool), $kinds (list of strings or null),
//         $channels (list of channel names: the channels to run),
//         $given (map of keyword channel → list of {id, score}, or null: Lucene ranks),
//         $maps (bool: every candidate's map even when no entity the question names matched — a time
//         phrase's ranking window reads their times; without it and without such an entity (the entity
//         boost's) nothing reads them before recall/details, and details is empty)
// returns: <channel>_fetched, <channel>_eligible, <channel> (list of {id, score}) for each index channel,
//          entities (list of {key, name}), entity (list of {id, score}), details (list of candidate maps: id, text, at_ts, origin,
//          mentions; recall/details reads the full hit map of those recall keeps; empty unless $maps or an entity the question names matched)
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.embedding LIMIT 1 }[0];
:param vector_fetch => 100;
:param vector_search => 100;
:param vector_exact => false;
:param lucene => 'ravi onboarding';
:param tenant_scope => '+tenant:"demo"^0';
:param key_ngrams => ['what', 'what did', 'did', 'did ravi', 'ravi', 'ravi say', 'say', 'say about', 'about', 'about onboarding', 'onboarding'];
:param keyword_fetch => 100;
:param named_keys => ['ravi'];
:param max_mentions => 300;
:param depth => 50;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
:param channels => ['vector', 'keyword', 'entity', 'context_vector', 'wide_vector', 'context_keyword', 'window_keyword'];
:param given => null;
:param maps => true;
CYPHER 25
// [[[cog from kgmem.store.rules import cog_channels; cog_channels("vector", "keyword", "context_vector", "wide_vector", "context_keyword", "window_keyword", generation="v2026") ]]]
CALL () {
  WITH 1 AS one WHERE 'vector' IN $channels
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_embedding FOR $vector WHERE m.tenant = $tenant LIMIT $vector_search) SCORE AS score
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $vector_fetch
  WITH collect({m: m, score: score}) AS rows
  WITH size(rows) AS fetched,
       [row IN rows WHERE
          row.m.tenant = $tenant
          AND row.m.merged_into IS NULL
          AND ($user IS NULL OR row.m.user = $user)
          AND ($kinds IS NULL OR row.m.kind IN $kinds)
          AND ($start IS NULL OR row.m.at >= $start)
          AND ($end IS NULL OR row.m.at < $end)
          AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
               OR ($at IS NOT NULL AND row.m.at <= $at
                   AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
        | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS vector_fetched, size(eligible) AS vector_eligible, eligible[0..$depth] AS vector
}
CALL () {
  WITH 1 AS one WHERE 'keyword' IN $channels
  CALL () {
    WITH 1 AS one WHERE $given IS NULL
    OPTIONAL CALL db.index.fulltext.queryNodes('memory_text', coalesce($tenant_scope + ' +text:(' + $lucene + ')', 'kgmem-no-keyword-query'),
                                               {limit: CASE WHEN $lucene IS NULL THEN 1 ELSE $keyword_fetch END})
    YIELD node, score
    WITH node, score WHERE $lucene IS NOT NULL AND node IS NOT NULL
    RETURN node AS m, score
    UNION ALL
    WITH 1 AS one WHERE $given IS NOT NULL
    UNWIND coalesce($given['keyword'], []) AS g
    MATCH (m:Memory {tenant: $tenant, id: g.id})
    RETURN m, g.score AS score
  }
  WITH m, score ORDER BY score DESC, m.id ASC
  WITH collect({m: m, score: score}) AS rows
  WITH size(rows) AS fetched,
       [row IN rows WHERE
          row.m.tenant = $tenant
          AND row.m.merged_into IS NULL
          AND ($user IS NULL OR row.m.user = $user)
          AND ($kinds IS NULL OR row.m.kind IN $kinds)
          AND ($start IS NULL OR row.m.at >= $start)
          AND ($end IS NULL OR row.m.at < $end)
          AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
               OR ($at IS NOT NULL AND row.m.at <= $at
                   AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
        | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS keyword_fetched, size(eligible) AS keyword_eligible, eligible[0..$depth] AS keyword
}
CALL () {
  WITH 1 AS one WHERE 'context_vector' IN $channels
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_context_embedding FOR $vector WHERE m.tenant = $tenant LIMIT $vector_search) SCORE AS score
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $vector_fetch
  WITH collect({m: m, score: score}) AS rows
  WITH size(rows) AS fetched,
       [row IN rows WHERE
          row.m.tenant = $tenant
          AND row.m.merged_into IS NULL
          AND ($user IS NULL OR row.m.user = $user)
          AND ($kinds IS NULL OR row.m.kind IN $kinds)
          AND ($start IS NULL OR row.m.at >= $start)
          AND ($end IS NULL OR row.m.at < $end)
          AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
               OR ($at IS NOT NULL AND row.m.at <= $at
                   AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
        | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS context_vector_fetched, size(eligible) AS context_vector_eligible, eligible[0..$depth] AS context_vector
}
CALL () {
  WITH 1 AS one WHERE 'wide_vector' IN $channels
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_wide_embedding FOR $vector WHERE m.tenant = $tenant LIMIT $vector_search) SCORE AS score
  WITH m, score ORDER BY score DESC, m.id ASC LIMIT $vector_fetch
  WITH collect({m: m, score: score}) AS rows
  WITH size(rows) AS fetched,
       [row IN rows WHERE
          row.m.tenant = $tenant
          AND row.m.merged_into IS NULL
          AND ($user IS NULL OR row.m.user = $user)
          AND ($kinds IS NULL OR row.m.kind IN $kinds)
          AND ($start IS NULL OR row.m.at >= $start)
          AND ($end IS NULL OR row.m.at < $end)
          AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
               OR ($at IS NOT NULL AND row.m.at <= $at
                   AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
        | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS wide_vector_fetched, size(eligible) AS wide_vector_eligible, eligible[0..$depth] AS wide_vector
}
CALL () {
  WITH 1 AS one WHERE 'context_keyword' IN $channels
  CALL () {
    WITH 1 AS one WHERE $given IS NULL
    OPTIONAL CALL db.index.fulltext.queryNodes('memory_context_text', coalesce($tenant_scope + ' +context_text:(' + $lucene + ')', 'kgmem-no-keyword-query'),
                                               {limit: CASE WHEN $lucene IS NULL THEN 1 ELSE $keyword_fetch END})
    YIELD node, score
    WITH node, score WHERE $lucene IS NOT NULL AND node IS NOT NULL
    RETURN node AS m, score
    UNION ALL
    WITH 1 AS one WHERE $given IS NOT NULL
    UNWIND coalesce($given['context_keyword'], []) AS g
    MATCH (m:Memory {tenant: $tenant, id: g.id})
    RETURN m, g.score AS score
  }
  WITH m, score ORDER BY score DESC, m.id ASC
  WITH collect({m: m, score: score}) AS rows
  WITH size(rows) AS fetched,
       [row IN rows WHERE
          row.m.tenant = $tenant
          AND row.m.merged_into IS NULL
          AND ($user IS NULL OR row.m.user = $user)
          AND ($kinds IS NULL OR row.m.kind IN $kinds)
          AND ($start IS NULL OR row.m.at >= $start)
          AND ($end IS NULL OR row.m.at < $end)
          AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
               OR ($at IS NOT NULL AND row.m.at <= $at
                   AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
        | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS context_keyword_fetched, size(eligible) AS context_keyword_eligible, eligible[0..$depth] AS context_keyword
}
CALL () {
  WITH 1 AS one WHERE 'window_keyword' IN $channels
  CALL () {
    WITH 1 AS one WHERE $given IS NULL
    OPTIONAL CALL db.index.fulltext.queryNodes('memory_window_text', coalesce($tenant_scope + ' +window_text:(' + $lucene + ')', 'kgmem-no-keyword-query'),
                                               {limit: CASE WHEN $lucene IS NULL THEN 1 ELSE $keyword_fetch END})
    YIELD node, score
    WITH node, score WHERE $lucene IS NOT NULL AND node IS NOT NULL
    RETURN node AS m, score
    UNION ALL
    WITH 1 AS one WHERE $given IS NOT NULL
    UNWIND coalesce($given['window_keyword'], []) AS g
    MATCH (m:Memory {tenant: $tenant, id: g.id})
    RETURN m, g.score AS score
  }
  WITH m, score ORDER BY score DESC, m.id ASC
  WITH collect({m: m, score: score}) AS rows
  WITH size(rows) AS fetched,
       [row IN rows WHERE
          row.m.tenant = $tenant
          AND row.m.merged_into IS NULL
          AND ($user IS NULL OR row.m.user = $user)
          AND ($kinds IS NULL OR row.m.kind IN $kinds)
          AND ($start IS NULL OR row.m.at >= $start)
          AND ($end IS NULL OR row.m.at < $end)
          AND (($at IS NULL AND ($include_superseded OR row.m.valid_to IS NULL))
               OR ($at IS NOT NULL AND row.m.at <= $at
                   AND ($include_superseded OR row.m.valid_to IS NULL OR row.m.valid_to > $at)))
        | {id: row.m.id, score: row.score}] AS eligible
  RETURN fetched AS window_keyword_fetched, size(eligible) AS window_keyword_eligible, eligible[0..$depth] AS window_keyword
}
// [[[end]]]
// [[[cog from kgmem.store.rules import cog_entity_channel; cog_entity_channel(gated=True) ]]]
CALL () {
  UNWIND coalesce($key_ngrams, []) AS wanted
  MATCH (e:Entity {tenant: $tenant, key: wanted})
  WHERE (coalesce(e.named_mentions, 0) > 0 OR e.key IN $named_keys)
    AND COUNT { (e)<-[:MENTIONS]-(:Memory) } <= $max_mentions
  RETURN collect(DISTINCT e) AS ents
}
CALL (ents) {
  UNWIND CASE WHEN 'entity' IN $channels THEN ents ELSE [] END AS e
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
  ORDER BY matched DESC, m.at DESC, m.id ASC
  LIMIT $depth
  RETURN collect({id: m.id, score: null}) AS entity
}
// [[[end]]]
// [[[cog from kgmem.store.rules import cog_candidates_tail; cog_candidates_tail() ]]]
WITH vector_fetched, vector_eligible, vector, keyword_fetched, keyword_eligible, keyword,
     context_vector_fetched, context_vector_eligible, context_vector, wide_vector_fetched, wide_vector_eligible,
     wide_vector, context_keyword_fetched, context_keyword_eligible, context_keyword, window_keyword_fetched,
     window_keyword_eligible, window_keyword, entity, ents,
     [e IN ents | {key: e.key, name: e.name}] AS entities, [e IN ents | e.key] AS ent_keys
CALL (vector, keyword, context_vector, wide_vector, context_keyword, window_keyword, entity, ent_keys) {
  UNWIND CASE WHEN $maps OR any(k IN ent_keys WHERE k IN $named_keys)
         THEN vector + keyword + context_vector + wide_vector + context_keyword + window_keyword + entity
         ELSE [] END AS hit
  WITH DISTINCT hit.id AS wanted
  MATCH (m:Memory {tenant: $tenant, id: wanted})
  RETURN collect(
  {id: m.id, text: m.text, at_ts: [m.at.epochSeconds, m.at.nanosecond], origin: m.origin,
   mentions: [(m)-[:MENTIONS]->(e:Entity) WHERE e.key IN ent_keys | e.key]}) AS details
}
RETURN vector_fetched, vector_eligible, vector, keyword_fetched, keyword_eligible, keyword,
       context_vector_fetched, context_vector_eligible, context_vector, wide_vector_fetched, wide_vector_eligible,
       wide_vector, context_keyword_fetched, context_keyword_eligible, context_keyword, window_keyword_fetched,
       window_keyword_eligible, window_keyword, entities, entity, details
// [[[end]]]
