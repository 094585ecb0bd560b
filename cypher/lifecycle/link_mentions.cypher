// name: lifecycle/link_mentions
// (memory)-[:MENTIONS]->(entity) for existing entities, without touching their aliases or counters
// (rebuild relinks derived memories to the entities their sources mention).
// params: $tenant (string), $links (list of maps: id, key)
// returns: linked
:param tenant => 'demo';
:param links => [{id: 'su-01', key: 'ravi'}];
UNWIND $links AS link
MATCH (m:Memory {tenant: $tenant, id: link.id})
MATCH (e:Entity {tenant: $tenant, key: link.key})
MERGE (m)-[:MENTIONS]->(e)
RETURN count(*) AS linked
