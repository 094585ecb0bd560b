// name: ingest/uncaused_ids
// Which of the given memory ids are records (not compiled facts) with no outgoing CAUSED_BY: the memories a
// re-run of an ingest infers causes for (the inference pass of a crashed run may never have reached them).
// params: $tenant (string), $ids (list of strings)
// returns: id — one row per such memory
:param tenant => 'demo';
:param ids => ['img-root', 'img-h2', 'no-such-id'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
WHERE (NOT m:Fact OR m.origin <> 'compiled') AND NOT (m)-[:CAUSED_BY]->()
RETURN m.id AS id
