// name: lifecycle/forget_targets
// What forgetting the given memories touches: for each one, its own fields, the memories derived from it
// (with their origin and the transform of the DERIVED_FROM edge), the memories it was derived from, the
// entities it mentions and the memories that name it as their cause.
// params: $tenant (string), $ids (list of strings)
// returns: id, origin, kind, transform, content_key, slot, stream, at, dependents (list of maps: id, origin,
//          transform), sources (ids), entities (keys), effects (ids)
:param tenant => 'demo';
:param ids => ['img-h1', 'maya-home-1'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
RETURN m.id AS id, coalesce(m.origin, 'record') AS origin, m.kind AS kind, m.transform AS transform,
       m.content_key AS content_key, m.slot AS slot, m.stream AS stream, m.at AS at,
       COLLECT { MATCH (d:Memory)-[r:DERIVED_FROM]->(m) WHERE d.tenant = $tenant
                 RETURN {id: d.id, origin: coalesce(d.origin, 'record'), transform: r.transform} AS dep } AS dependents,
       COLLECT { MATCH (m)-[:DERIVED_FROM]->(s:Memory) WHERE s.tenant = $tenant RETURN s.id AS sid } AS sources,
       COLLECT { MATCH (m)-[:MENTIONS]->(e:Entity) RETURN e.key AS key } AS entities,
       COLLECT { MATCH (x:Memory)-[:CAUSED_BY]->(m) WHERE x.tenant = $tenant RETURN x.id AS xid } AS effects
