// name: lifecycle/records
// The tenant's record memories (origin 'record': the sources every derived artefact is rebuilt from), oldest
// first, with the keys of the entities they mention and their current embedding.
// params: $tenant (string)
// returns: id, text, kind, at, recorded_at, user, subject, predicate, object, polarity, content_key, source,
//          confidence, stream, retention, entities (keys), embedding
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})
WHERE coalesce(m.origin, 'record') = 'record'
RETURN m.id AS id, m.text AS text, m.kind AS kind, m.at AS at, m.recorded_at AS recorded_at, m.user AS user,
       m.subject AS subject, m.predicate AS predicate, m.object AS object, m.polarity AS polarity,
       m.content_key AS content_key, m.source AS source, m.confidence AS confidence, m.stream AS stream,
       m.retention AS retention,
       COLLECT { MATCH (m)-[:MENTIONS]->(e:Entity) RETURN DISTINCT e.key AS key ORDER BY key } AS entities,
       m.embedding AS embedding
ORDER BY at, id
