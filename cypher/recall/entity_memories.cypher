// name: recall/entity_memories
// Entity channel: memories of the tenant that mention the resolved entities and pass the eligibility
// filters, ranked by how many of the entities they mention, then by cosine to the question. Entities
// mentioned by more than $max_mentions memories are too broad to say anything and are skipped.
// params: $keys (list of entity keys), $vector (list of 384 floats), $max_mentions (int), $k (int),
//         $tenant (string), $user (string or null), $start (datetime or null), $end (datetime or null),
//         $at (datetime or null), $include_superseded (bool), $kinds (list of strings or null)
// returns: id, matched, score (normalised cosine)
:param keys => ['ravi'];
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.embedding LIMIT 1 }[0];
:param max_mentions => 2000;
:param k => 10;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
MATCH (e:Entity {tenant: $tenant})
WHERE e.key IN $keys AND COUNT { (e)<-[:MENTIONS]-(:Memory) } <= $max_mentions
MATCH (e)<-[:MENTIONS]-(m:Memory)
WHERE m.tenant = $tenant AND m.merged_into IS NULL
  AND ($user IS NULL OR m.user = $user)
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($start IS NULL OR m.at >= $start)
  AND ($end IS NULL OR m.at < $end)
  AND (
    ($at IS NULL AND ($include_superseded OR m.valid_to IS NULL))
    OR ($at IS NOT NULL AND m.at <= $at AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $at))
  )
WITH m, count(DISTINCT e) AS matched
RETURN m.id AS id, matched, vector.similarity.cosine(m.embedding, $vector) AS score
ORDER BY matched DESC, score DESC, id ASC
LIMIT $k
