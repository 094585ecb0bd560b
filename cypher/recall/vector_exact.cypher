// name: recall/vector_exact
// Vector channel, exact: cosine against every eligible memory of the tenant (filters first, then a full
// scan of that set). Used when the tenant's eligible set is small next to the whole index, where the
// approximate index would need a huge over-fetch.
// params: $vector (list of 384 floats), $k (int), $tenant (string), $user (string or null),
//         $start (datetime or null), $end (datetime or null), $at (datetime or null),
//         $include_superseded (bool), $kinds (list of strings or null)
// returns: id, score
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.embedding LIMIT 1 }[0];
:param k => 10;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
MATCH (m:Memory {tenant: $tenant})
WHERE m.embedding IS NOT NULL
  // [[[cog from kgmem.store.rules import cog_where; cog_where('m', '  ', tenant=False, continued=True) ]]]
  AND m.merged_into IS NULL
  AND ($user IS NULL OR m.user = $user)
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($start IS NULL OR m.at >= $start)
  AND ($end IS NULL OR m.at < $end)
  AND (($at IS NULL AND ($include_superseded OR m.valid_to IS NULL))
       OR ($at IS NOT NULL AND m.at <= $at
           AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $at)))
  // [[[end]]]
WITH m, vector.similarity.cosine(m.embedding, $vector) AS score
RETURN m.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $k
