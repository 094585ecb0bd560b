// name: derived/supersession_sources
// The memories (by id) the inferred-supersession pass reads about: plain-text records only (episodes: a
// structured fact's versions are ordered by its slot), with their text, time, user, stream and the entities
// they mention.
// params: $tenant (string), $ids (list of strings)
// returns: id, text, at_ms (valid time, milliseconds since the epoch: cheaper to read than a datetime), user,
//          stream, mentions (list of entity keys)
:param tenant => 'demo';
:param ids => ['c1', 'c2'];
UNWIND $ids AS wanted
MATCH (m:Memory:Episode {tenant: $tenant, id: wanted})
WHERE m.origin = 'record' AND m.merged_into IS NULL
RETURN m.id AS id, m.text AS text, m.at.epochMillis AS at_ms, m.user AS user, m.stream AS stream,
       [(m)-[:MENTIONS]->(e:Entity) | e.key] AS mentions
