// name: memory/by_ids
// Memories of a tenant by id, without their embeddings.
// params: $tenant (string), $ids (list of strings)
// returns: id, text, at, kind, tenant, user, subject, predicate, object, polarity, stream, source, confidence, recorded_at, valid_to
:param tenant => 'demo';
:param ids => ['img-root'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
RETURN m.id AS id, m.text AS text, m.at AS at, m.kind AS kind, m.tenant AS tenant, m.user AS user,
       m.subject AS subject, m.predicate AS predicate, m.object AS object, m.polarity AS polarity,
       m.stream AS stream, m.source AS source, m.confidence AS confidence, m.recorded_at AS recorded_at,
       m.valid_to AS valid_to
