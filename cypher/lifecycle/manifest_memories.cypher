// name: lifecycle/manifest_memories
// Every memory of the tenant as a rebuild manifest sees it: identity, origin, content key, transform,
// embedding model, chain fields and the ids it was derived from (no text, no vectors).
// params: $tenant (string)
// returns: id, origin, kind, content_key, transform, embedding_model, embedded, slot, version, valid_to,
//          stream, merged_into, sources (sorted ids)
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})
RETURN m.id AS id, coalesce(m.origin, 'record') AS origin, m.kind AS kind, m.content_key AS content_key,
       m.transform AS transform, m.embedding_model AS embedding_model, m.embedding IS NOT NULL AS embedded,
       m.slot AS slot, m.version AS version, m.valid_to AS valid_to, m.stream AS stream,
       m.merged_into AS merged_into,
       COLLECT { MATCH (m)-[:DERIVED_FROM]->(s:Memory) RETURN s.id AS sid ORDER BY sid } AS sources
ORDER BY id
