// name: ingest/write_memories
// Create :Memory nodes (with :Episode, :Fact or :Summary) and store their embeddings as float32 vectors.
// Existing ids are left as they are (episodes are append-only).
// params: $tenant (string), $recorded_at (datetime), $embedding_model (string),
//         $rows (list of maps: id, text, kind, at, user, subject, predicate, object, object_key, polarity,
//                slot, content_key, source, confidence, stream, retention, origin, transform, entities_given,
//                embedding)
// returns: written (count)
:param tenant => 'browser-demo';
:param recorded_at => datetime();
:param embedding_model => 'sentence-transformers/all-MiniLM-L6-v2@gt-0.1.0';
:param rows => [{id: 'browser-1', text: 'I like diet coke', kind: 'episode', at: datetime('2026-01-05T10:00:00Z'), user: null, subject: null, predicate: null, object: null, object_key: null, polarity: true, slot: null, content_key: 'browser-1', source: 'browser', confidence: null, stream: null, retention: null, origin: 'record', transform: null, entities_given: false, embedding: [x IN range(1, 384) | 0.05]}];
UNWIND $rows AS row
MERGE (m:Memory {tenant: $tenant, id: row.id})
ON CREATE SET
  m.text = row.text,
  m.kind = row.kind,
  m.at = row.at,
  m.recorded_at = $recorded_at,
  m.user = row.user,
  m.subject = row.subject,
  m.predicate = row.predicate,
  m.object = row.object,
  m.object_key = row.object_key,
  m.polarity = row.polarity,
  m.slot = row.slot,
  m.content_key = row.content_key,
  m.source = row.source,
  m.confidence = row.confidence,
  m.stream = row.stream,
  m.retention = row.retention,
  m.origin = row.origin,
  m.transform = row.transform,
  m.entities_given = row.entities_given,
  m.embedding_model = $embedding_model
FOREACH (_ IN CASE WHEN row.kind = 'episode' THEN [1] ELSE [] END | SET m:Episode)
FOREACH (_ IN CASE WHEN row.kind = 'fact' THEN [1] ELSE [] END | SET m:Fact)
FOREACH (_ IN CASE WHEN row.kind = 'summary' THEN [1] ELSE [] END | SET m:Summary)
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
RETURN count(m) AS written
