// name: recall/vector
// Vector channel (own or derived context vector, $index): nearest memories by cosine from the native HNSW index, then the eligibility filters
// (tenant, not merged into a consolidated memory, user, kinds, time window, as-of, current-only). The index is asked for $fetch neighbours so
// that after filtering at least $k usually remain; the caller asks again with more (or uses
// recall/vector_exact) when too few do. score is Neo4j's normalised cosine, (1 + cos) / 2.
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
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node, score
WITH collect({m: node, score: score}) AS rows
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
