// name: derived/cause_sources
// The memories (by id) the inferred-cause pass pairs: plain-text records only, with their text, time, user,
// vector and how many explicit (recorded, not inferred) causes they have — an explicit caused_by always wins.
// params: $tenant (string), $ids (list of strings)
// returns: id, text, at_ms (valid time, milliseconds since the epoch), user, embedding, explicit_causes
:param tenant => 'demo';
:param ids => ['img-h1', 'img-h2'];
UNWIND $ids AS wanted
MATCH (m:Memory:Episode {tenant: $tenant, id: wanted})
WHERE m.origin = 'record' AND m.merged_into IS NULL AND m.embedding IS NOT NULL
RETURN m.id AS id, m.text AS text, m.at.epochMillis AS at_ms, m.user AS user, m.embedding AS embedding,
       COUNT { (m)-[r:CAUSED_BY]->() WHERE NOT coalesce(r.inferred, false) } AS explicit_causes
