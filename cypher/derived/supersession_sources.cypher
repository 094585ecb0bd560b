// name: derived/supersession_sources
// The memories (by id) the inferred-supersession pass reads about: plain-text records only (episodes: a
// structured fact's versions are ordered by its slot), with their text, time, user, stream and the entities
// they mention, and whether the tenant holds a memory later than it that is not among $ids (a late arrival:
// a newer memory already stored may retire it).
// params: $tenant (string), $ids (list of strings)
// returns: id, text, at, user, stream, mentions (list of entity keys), later_stored (bool)
:param tenant => 'demo';
:param ids => ['c1', 'c2'];
UNWIND $ids AS wanted
MATCH (m:Memory:Episode {tenant: $tenant, id: wanted})
WHERE m.origin = 'record' AND m.merged_into IS NULL
RETURN m.id AS id, m.text AS text, m.at AS at, m.user AS user, m.stream AS stream,
       [(m)-[:MENTIONS]->(e:Entity) | e.key] AS mentions,
       EXISTS { MATCH (o:Memory:Episode {tenant: $tenant}) WHERE o.at > m.at AND NOT o.id IN $ids } AS later_stored
