// name: lifecycle/consolidated
// The tenant's consolidated memories (origin 'consolidated': merges and pattern summaries), every one when
// $ids is null, else those ids, with the ids of the memories each was derived from.
// params: $tenant (string), $ids (list of strings or null)
// returns: id, transform, kind, text, content_key, sources (sorted ids)
:param tenant => 'demo';
:param ids => null;
MATCH (c:Memory {tenant: $tenant})
WHERE c.origin = 'consolidated' AND ($ids IS NULL OR c.id IN $ids)
RETURN c.id AS id, c.transform AS transform, c.kind AS kind, c.text AS text, c.content_key AS content_key,
       COLLECT { MATCH (c)-[:DERIVED_FROM]->(s:Memory) RETURN s.id AS sid ORDER BY sid } AS sources
ORDER BY id
