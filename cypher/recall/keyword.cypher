// name: recall/keyword
// Keyword channel: Lucene BM25 over Memory.text or a derived context text (the fulltext index $index), then the same eligibility filters.
// $lucene is built from the user's words with every Lucene operator escaped (kgmem/query/lucene.py) and asked
// of the text property $field, with the tenant's clause $tenant_scope required (the index holds each memory's
// tenant; the clause weighs nothing, so the scores are the text's BM25). With
// $given (a small tenant's own BM25 ranking, kgmem/query/own_keywords.py: ids and scores, best first) the
// memories are read by id instead of asking the index. Either way ordered by score, ties by id.
// params: $index (memory_text, memory_context_text or memory_window_text), $field (text, context_text or
//         window_text: the index's text property), $lucene (string), $tenant_scope (string), $fetch (int), $k (int),
//         $given (list of {id, score} or null), $tenant (string), $user (string or null),
//         $start (datetime or null), $end (datetime or null), $at (datetime or null),
//         $include_superseded (bool), $kinds (list of strings or null)
// returns: fetched (index rows read), hits (list of {id, score}, best first, at most $k) — always one row
:param index => 'memory_text';
:param field => 'text';
:param lucene => 'onboarding';
:param tenant_scope => '+tenant:"demo"^0';
:param fetch => 100;
:param k => 10;
:param given => null;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
CALL () {
  WITH 1 AS one WHERE $given IS NULL
  // [[[cog from kgmem.store.rules import cog_scoped_lucene; cog_scoped_lucene() ]]]
  CALL db.index.fulltext.queryNodes($index, $tenant_scope + ' +' + $field + ':(' + $lucene + ')', {limit: $fetch}) YIELD node, score
  // [[[end]]]
  RETURN node AS m, score
  UNION ALL
  WITH 1 AS one WHERE $given IS NOT NULL
  UNWIND $given AS g
  MATCH (m:Memory {tenant: $tenant, id: g.id})
  RETURN m, g.score AS score
}
WITH m, score ORDER BY score DESC, m.id ASC
WITH collect({m: m, score: score}) AS rows
RETURN size(rows) AS fetched,
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
        | {id: row.m.id, score: row.score}][0..$k] AS hits
