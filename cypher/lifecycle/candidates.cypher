// name: lifecycle/candidates
// Record memories (episodes and recorded summaries) that consolidation may merge or summarise: every one of
// the tenant when $ids is null, else those ids. With their text, time, user, whether they are current,
// whether they take part in a causal link, the sorted keys of the entities they mention, and the embedding.
// params: $tenant (string), $ids (list of strings or null)
// returns: id, text, at, kind, user, valid_to, merged_into, causal (bool), entities (list of keys), embedding
:param tenant => 'demo';
:param ids => null;
MATCH (m:Memory {tenant: $tenant})
WHERE coalesce(m.origin, 'record') = 'record' AND m.kind IN ['episode', 'summary']
  AND ($ids IS NULL OR m.id IN $ids)
RETURN m.id AS id, m.text AS text, m.at AS at, m.kind AS kind, m.user AS user, m.valid_to AS valid_to,
       m.merged_into AS merged_into,
       EXISTS { (m)-[:CAUSED_BY]-(:Memory) } AS causal,
       COLLECT { MATCH (m)-[:MENTIONS]->(e:Entity) RETURN DISTINCT e.key AS key ORDER BY key } AS entities,
       m.embedding AS embedding
ORDER BY at, id
