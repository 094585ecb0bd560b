// name: ingest/link_entities
// Resolve entity mentions to one :Entity per normalised key in the tenant and link (memory)-[:MENTIONS]->(entity).
// New spellings of a known entity are added to its aliases; named_mentions counts mentions that were
// evidence of a name (given explicitly, multi-word, id-like, or capitalised mid-sentence).
// params: $tenant (string), $recorded_at (datetime),
//         $entities (list of maps: key, name, aliases (list of strings), memory_ids (list of strings),
//                    named (int))
// returns: entities (count merged), mentions (count of new MENTIONS edges)
:param tenant => 'demo';
:param recorded_at => datetime();
:param entities => [];
UNWIND $entities AS ent
MERGE (e:Entity {tenant: $tenant, key: ent.key})
ON CREATE SET e.name = ent.name, e.aliases = [], e.created_at = $recorded_at, e.named_mentions = 0
WITH e, ent, [a IN ent.aliases WHERE NOT a IN e.aliases] AS fresh
SET e.aliases = e.aliases + fresh,
    e.named_mentions = coalesce(e.named_mentions, 0) + ent.named,
    e.alias_text = reduce(s = '', a IN e.aliases + fresh | s + ' ' + a)
WITH e, ent
CALL (e, ent) {
  UNWIND ent.memory_ids AS mid
  MATCH (m:Memory {tenant: $tenant, id: mid})
  OPTIONAL MATCH (m)-[old:MENTIONS]->(e)
  MERGE (m)-[:MENTIONS]->(e)
  RETURN count(CASE WHEN old IS NULL THEN 1 END) AS created
}
RETURN count(e) AS entities, sum(created) AS mentions
