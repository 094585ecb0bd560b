// name: memory/mentions
// The memories of a tenant that mention an entity (found by its comparison key), newest first in valid time,
// at most $limit of them, with the entity's name, its aliases and how many memories mention it in all. No row:
// no memory of the tenant mentions an entity of that key.
// params: $tenant (string), $key (string), $limit (int)
// returns: name, aliases, total, memories (list of maps: id, text, at, kind, user, subject, predicate, object,
//          polarity, stream, source, confidence, recorded_at, valid_to)
:param tenant => 'demo';
:param key => 'maya';
:param limit => 20;
MATCH (e:Entity {tenant: $tenant, key: $key})
RETURN e.name AS name, coalesce(e.aliases, []) AS aliases,
       COUNT { MATCH (e)<-[:MENTIONS]-(m:Memory) WHERE m.tenant = $tenant } AS total,
       COLLECT { MATCH (e)<-[:MENTIONS]-(m:Memory) WHERE m.tenant = $tenant
                 WITH m ORDER BY m.at DESC, m.id ASC LIMIT $limit
                 RETURN m {.id, .text, .at, .kind, .user, .subject, .predicate, .object, .polarity, .stream,
                           .source, .confidence, .recorded_at, .valid_to} AS memory } AS memories
