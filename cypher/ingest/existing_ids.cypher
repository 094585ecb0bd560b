// name: ingest/existing_ids
// Which of the given memory ids already exist in the tenant, with their content keys (idempotent ingest).
// params: $tenant (string), $ids (list of strings)
// returns: id, content_key — one row per id that exists
:param tenant => 'demo';
:param ids => ['img-root', 'no-such-id'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
RETURN m.id AS id, m.content_key AS content_key
