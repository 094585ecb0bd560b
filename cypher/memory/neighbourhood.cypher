// name: memory/neighbourhood
// A memory and what is next to it in the graph, in one read: its causes and its effects (CAUSED_BY both ways,
// recorded before inferred, then by confidence), what it superseded and what superseded it (SUPERSEDES, one
// step: a slot's version chain, or inferred from plain text with its model and cue), the memories before and
// after it in its stream (NEXT), the entities it mentions and the memory it is a part of (DERIVED_FROM
// {transform: 'document/v1'}: a document). Each list holds at most $limit; counts has the full numbers.
// params: $tenant (string), $id (string), $limit (int)
// returns: id, text, at, kind, user, subject, predicate, object, polarity, stream, source, confidence,
//          recorded_at, valid_to, causes, effects (lists of maps: id, text, at, inferred, confidence),
//          supersedes, superseded_by (lists of maps: id, text, at, inferred, confidence, by, cue), previous,
//          next, part_of (map: id, text, at; or null), entities (list of maps: key, name), counts (map: causes,
//          effects, supersedes, superseded_by, entities)
:param tenant => 'demo';
:param id => 'img-h1';
:param limit => 20;
MATCH (m:Memory {tenant: $tenant, id: $id})
RETURN m.id AS id, m.text AS text, m.at AS at, m.kind AS kind, m.user AS user, m.subject AS subject,
       m.predicate AS predicate, m.object AS object, m.polarity AS polarity, m.stream AS stream,
       m.source AS source, m.confidence AS confidence, m.recorded_at AS recorded_at, m.valid_to AS valid_to,
       COLLECT { MATCH (m)-[r:CAUSED_BY]->(c:Memory) WHERE c.tenant = $tenant
                 WITH c, r ORDER BY coalesce(r.inferred, false), coalesce(r.confidence, 1.0) DESC, c.at DESC, c.id
                 LIMIT $limit
                 RETURN {id: c.id, text: c.text, at: c.at, inferred: coalesce(r.inferred, false),
                         confidence: coalesce(r.confidence, 1.0)} AS cause } AS causes,
       COLLECT { MATCH (m)<-[r:CAUSED_BY]-(c:Memory) WHERE c.tenant = $tenant
                 WITH c, r ORDER BY coalesce(r.inferred, false), coalesce(r.confidence, 1.0) DESC, c.at, c.id
                 LIMIT $limit
                 RETURN {id: c.id, text: c.text, at: c.at, inferred: coalesce(r.inferred, false),
                         confidence: coalesce(r.confidence, 1.0)} AS effect } AS effects,
       COLLECT { MATCH (m)-[r:SUPERSEDES]->(o:Memory) WHERE o.tenant = $tenant
                 WITH o, r ORDER BY coalesce(r.inferred, false), coalesce(r.confidence, 1.0) DESC, o.at DESC, o.id
                 LIMIT $limit
                 RETURN {id: o.id, text: o.text, at: o.at, inferred: coalesce(r.inferred, false),
                         confidence: coalesce(r.confidence, 1.0), by: coalesce(r.by, 'slot'), cue: r.cue} AS old
               } AS supersedes,
       COLLECT { MATCH (m)<-[r:SUPERSEDES]-(n:Memory) WHERE n.tenant = $tenant
                 WITH n, r ORDER BY coalesce(r.inferred, false), coalesce(r.confidence, 1.0) DESC, n.at, n.id
                 LIMIT $limit
                 RETURN {id: n.id, text: n.text, at: n.at, inferred: coalesce(r.inferred, false),
                         confidence: coalesce(r.confidence, 1.0), by: coalesce(r.by, 'slot'), cue: r.cue} AS newer
               } AS superseded_by,
       head(COLLECT { MATCH (p:Memory)-[:NEXT]->(m) WHERE p.tenant = $tenant
                      RETURN {id: p.id, text: p.text, at: p.at} AS prev }) AS previous,
       head(COLLECT { MATCH (m)-[:NEXT]->(x:Memory) WHERE x.tenant = $tenant
                      RETURN {id: x.id, text: x.text, at: x.at} AS nxt }) AS next,
       head(COLLECT { MATCH (m)-[:DERIVED_FROM {transform: 'document/v1'}]->(d:Memory) WHERE d.tenant = $tenant
                      RETURN {id: d.id, text: d.text, at: d.at} AS whole }) AS part_of,
       COLLECT { MATCH (m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant
                 WITH e ORDER BY e.key LIMIT $limit
                 RETURN {key: e.key, name: e.name} AS entity } AS entities,
       {causes: COUNT { MATCH (m)-[:CAUSED_BY]->(c:Memory) WHERE c.tenant = $tenant },
        effects: COUNT { MATCH (m)<-[:CAUSED_BY]-(c:Memory) WHERE c.tenant = $tenant },
        supersedes: COUNT { MATCH (m)-[:SUPERSEDES]->(o:Memory) WHERE o.tenant = $tenant },
        superseded_by: COUNT { MATCH (m)<-[:SUPERSEDES]-(n:Memory) WHERE n.tenant = $tenant },
        entities: COUNT { MATCH (m)-[:MENTIONS]->(e:Entity) WHERE e.tenant = $tenant }} AS counts
