// name: recall/vector_exact
// A vector channel, exact: cosine against every eligible memory of the tenant (filters first, then a full
// scan of that set). Used when the eligible set is small next to the whole index, where the approximate index
// would need a huge over-fetch and would still miss some: a time window's memories (the memory's own vector;
// on 5.26, whose index cannot filter by tenant, a small window's context vectors too), and on 5.26 a tenant
// that is a sliver of the index.
// params: $property (the channel's vector property, from kgmem.store.rules.VECTOR_INDEX_PROPERTY: embedding,
//         context_embedding or wide_embedding — never user input), $vector (list of 384 floats), $k (int),
//         $tenant (string), $user (string or null),
//         $start (datetime or null), $end (datetime or null), $at (datetime or null),
//         $include_superseded (bool), $kinds (list of strings or null)
// returns: id, score
:param property => 'embedding';
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
WHERE
  // [[[cog from kgmem.store.rules import cog_where; cog_where('m', '  ', tenant=False) ]]]
  m.merged_into IS NULL
  AND ($user IS NULL OR m.user = $user)
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($start IS NULL OR m.at >= $start)
  AND ($end IS NULL OR m.at < $end)
  AND (($at IS NULL AND ($include_superseded OR m.valid_to IS NULL))
       OR ($at IS NOT NULL AND m.at <= $at
           AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $at)))
  // [[[end]]]
// the channel's property, read after the filters
// [[[cog from kgmem.store.rules import cog_vector_property; cog_vector_property('m') ]]]
WITH m, CASE $property
  WHEN 'embedding' THEN m.embedding
  WHEN 'context_embedding' THEN m.context_embedding
  WHEN 'wide_embedding' THEN m.wide_embedding
END AS v
// [[[end]]]
WHERE v IS NOT NULL
WITH m, vector.similarity.cosine(v, $vector) AS score
RETURN m.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $k
