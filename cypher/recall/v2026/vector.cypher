// name: recall/v2026/vector
// Vector channel on Neo4j 2026.x (own or derived context vector, $index): the $fetch nearest memories of the tenant,
// filtered inside the vector index (SEARCH ... WHERE m.tenant = $tenant over an index created WITH [m.tenant]),
// then the rest of the eligibility rule (not merged into a consolidated memory, user, kinds, time window, as-of,
// current-only), as recall/vector does on 5.26. fetched < $fetch: the tenant has no more vectors in the index.
// score is Neo4j's normalised cosine, (1 + cos) / 2.
// params: $index (memory_embedding, memory_context_embedding or memory_wide_embedding), $vector (list of 384 floats), $fetch (int), $k (int), $tenant (string), $user (string or null),
//         $start (datetime or null), $end (datetime or null), $at (datetime or null),
//         $include_superseded (bool), $kinds (list of strings or null)
// returns: fetched (index rows read), eligible (how many passed the rule), hits (list of {id, score}, best first, at most $k) — always one row (how many index rows were read)
:param index => 'memory_embedding';
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.embedding LIMIT 1 }[0];
:param fetch => 100;
:param k => 10;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
CYPHER 25
// [[[cog from kgmem.store.rules import cog_vector_search_by_index; cog_vector_search_by_index('$fetch') ]]]
CALL () {
  WITH 1 AS one WHERE $index = 'memory_embedding'
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_embedding FOR $vector WHERE m.tenant = $tenant LIMIT $fetch) SCORE AS score
  RETURN m, score
  UNION ALL
  WITH 1 AS one WHERE $index = 'memory_context_embedding'
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_context_embedding FOR $vector WHERE m.tenant = $tenant LIMIT $fetch) SCORE AS score
  RETURN m, score
  UNION ALL
  WITH 1 AS one WHERE $index = 'memory_wide_embedding'
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_wide_embedding FOR $vector WHERE m.tenant = $tenant LIMIT $fetch) SCORE AS score
  RETURN m, score
}
// [[[end]]]
WITH m, score ORDER BY score DESC, m.id ASC
WITH collect({m: m, score: score}) AS rows
WITH size(rows) AS fetched,
     [row IN rows WHERE
          // [[[cog from kgmem.store.rules import cog_where; cog_where('row.m', '          ') ]]]
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
RETURN fetched, size(eligible) AS eligible, eligible[0..$k] AS hits
