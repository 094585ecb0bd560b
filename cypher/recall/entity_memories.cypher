// name: recall/entity_memories
// Entity channel: memories of the tenant that mention the resolved entities, passing the eligibility
// filters, ranked by how many of the entities they mention, then by the entities' specificity
// (an entity mentioned by few memories counts more), then newest first.
// params: $keys (list of entity keys), $k (int), $tenant (string), $user (string or null),
//         $start (datetime or null), $end (datetime or null), $at (datetime or null),
//         $include_superseded (bool), $kinds (list of strings or null)
// returns: id, matched, specificity
:param keys => ['priya'];
:param k => 10;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
MATCH (e:Entity {tenant: $tenant})
WHERE e.key IN $keys
WITH e, 1.0 / (1 + COUNT { (e)<-[:MENTIONS]-(:Memory) }) AS weight
MATCH (e)<-[:MENTIONS]-(m:Memory)
WHERE m.tenant = $tenant
  AND ($user IS NULL OR m.user = $user)
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($start IS NULL OR m.at >= $start)
  AND ($end IS NULL OR m.at < $end)
  AND (
    ($at IS NULL AND ($include_superseded OR m.valid_to IS NULL))
    OR ($at IS NOT NULL AND m.at <= $at AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $at))
  )
WITH m, count(DISTINCT e) AS matched, sum(weight) AS specificity
RETURN m.id AS id, matched, specificity
ORDER BY matched DESC, specificity DESC, m.at DESC, id ASC
LIMIT $k
