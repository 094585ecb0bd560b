// name: why/read_sides
// The memories (by id) a why-question reads for a cause stated in words — memories as recorded (episodes and
// structured records, not facts compiled from a record's text, which repeat it) — their text, time, user and
// vector, and the inferred and recorded causes already linked from them; a memory being forgotten (its text or
// time already gone) is not read.
// params: $tenant (string), $ids (list of strings)
// returns: id, text, at_ms (valid time, milliseconds since the epoch), user, embedding, cause_in_text,
//          linked (list of {id, inferred, confidence, at_ms}: its causes)
:param tenant => 'demo';
:param ids => ['img-h1', 'img-h2'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
WHERE m.embedding IS NOT NULL AND coalesce(m.origin, 'record') = 'record' AND m.text IS NOT NULL
  AND m.at IS NOT NULL
RETURN m.id AS id, m.text AS text, m.at.epochMillis AS at_ms, m.user AS user, m.embedding AS embedding,
       m.cause_in_text AS cause_in_text,
       [(m)-[r:CAUSED_BY]->(c:Memory) WHERE c.tenant = $tenant AND c.at IS NOT NULL |
        {id: c.id, inferred: coalesce(r.inferred, false), confidence: coalesce(r.confidence, 1.0),
         at_ms: c.at.epochMillis}] AS linked
