// name: lifecycle/write_consolidated
// Create consolidated memories: a merge of near-duplicates (transform 'merge/v1', sources get merged_into)
// or a pattern summary (transform 'summary/v1'), origin 'consolidated', with DERIVED_FROM to every source,
// MENTIONS to the entities the sources share, and the embedding stored as a float32 vector. An id that
// exists already is left as it is.
// params: $tenant (string), $recorded_at (datetime), $embedding_model (string),
//         $rows (list of maps: id, text, kind, at, user, content_key, transform, sources (ids),
//                entities (keys), first_at, last_at, occurrences, pattern, weekday, interval_days, embedding)
// returns: written, sources (DERIVED_FROM edges), mentions
:param tenant => 'demo';
:param recorded_at => datetime();
:param embedding_model => 'sentence-transformers/all-MiniLM-L6-v2@gt-0.1.0';
:param rows => [{id: 'summary-browser-demo', text: 'Standup notes — every day, 2 times', kind: 'summary', at: datetime('2026-03-03T09:00:00Z'), user: null, content_key: 'browser-demo', transform: 'summary/v1', sources: ['su-01', 'su-02'], entities: ['ravi'], first_at: datetime('2026-03-02T09:00:00Z'), last_at: datetime('2026-03-03T09:00:00Z'), occurrences: 2, pattern: 'interval', weekday: null, interval_days: 1, embedding: [x IN range(1, 384) | 0.05]}];
UNWIND $rows AS row
MERGE (c:Memory {tenant: $tenant, id: row.id})
ON CREATE SET
  c.text = row.text,
  c.kind = row.kind,
  c.at = row.at,
  c.recorded_at = $recorded_at,
  c.user = row.user,
  c.content_key = row.content_key,
  c.origin = 'consolidated',
  c.transform = row.transform,
  c.first_at = row.first_at,
  c.last_at = row.last_at,
  c.occurrences = row.occurrences,
  c.pattern = row.pattern,
  c.weekday = row.weekday,
  c.interval_days = row.interval_days,
  c.embedding_model = $embedding_model
FOREACH (_ IN CASE WHEN row.kind = 'episode' THEN [1] ELSE [] END | SET c:Episode)
FOREACH (_ IN CASE WHEN row.kind = 'summary' THEN [1] ELSE [] END | SET c:Summary)
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
WITH c, row
CALL (c, row) {
  UNWIND row.sources AS sid
  MATCH (s:Memory {tenant: $tenant, id: sid})
  MERGE (c)-[r:DERIVED_FROM]->(s)
  ON CREATE SET r.transform = row.transform
  FOREACH (_ IN CASE WHEN row.transform = 'merge/v1' THEN [1] ELSE [] END | SET s.merged_into = row.id)
  RETURN count(s) AS linked
}
CALL (c, row) {
  UNWIND row.entities AS key
  MATCH (e:Entity {tenant: $tenant, key: key})
  MERGE (c)-[:MENTIONS]->(e)
  RETURN count(e) AS mentioned
}
RETURN count(c) AS written, sum(linked) AS sources, sum(mentioned) AS mentions
