// name: lifecycle/import_memories
// Restore exported memories into an empty tenant exactly as they were (all properties; labels only from
// Episode, Fact, Summary), with embeddings freshly computed from their texts.
// params: $tenant (string), $embedding_model (string),
//         $rows (list of maps: id, labels (list of strings), props (map), embedding (list of floats))
// returns: written
:param tenant => 'browser-import-demo';
:param embedding_model => 'sentence-transformers/all-MiniLM-L6-v2@gt-0.1.0';
:param rows => [{id: 'browser-1', labels: ['Episode'], props: {text: 'I like diet coke', kind: 'episode', at: datetime('2026-01-05T10:00:00Z'), origin: 'record'}, embedding: [x IN range(1, 384) | 0.05]}];
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props, m.tenant = $tenant, m.id = row.id, m.embedding_model = $embedding_model
FOREACH (_ IN CASE WHEN 'Episode' IN row.labels THEN [1] ELSE [] END | SET m:Episode)
FOREACH (_ IN CASE WHEN 'Fact' IN row.labels THEN [1] ELSE [] END | SET m:Fact)
FOREACH (_ IN CASE WHEN 'Summary' IN row.labels THEN [1] ELSE [] END | SET m:Summary)
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
RETURN count(m) AS written
