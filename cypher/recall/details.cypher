// name: recall/details
// What a hit shows: text, times, kind, fact fields, how many recorded causes it has (for why) and the cosine
// of the question to it (for abstention), for the fused ids, in the tenant only.
// params: $tenant (string), $ids (list of strings), $vector (list of 384 floats)
// returns: id, text, at, kind, origin, subject, predicate, object, polarity, valid_to, stream, recorded_at, user,
//          causes, similarity
:param tenant => 'demo';
:param ids => ['img-root'];
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.embedding LIMIT 1 }[0];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
RETURN m.id AS id, m.text AS text, m.at AS at, m.kind AS kind, m.origin AS origin, m.subject AS subject, m.predicate AS predicate,
       m.object AS object, m.polarity AS polarity, m.valid_to AS valid_to, m.stream AS stream,
       m.recorded_at AS recorded_at, m.user AS user, COUNT { (m)-[:CAUSED_BY]->(:Memory) } AS causes,
       CASE WHEN m.embedding IS NULL THEN null ELSE vector.similarity.cosine(m.embedding, $vector) END AS similarity
