// name: admin/set_embedding_model
// Test and admin use only: relabel one memory's embedding model without re-embedding it (the tests use it
// to fake vectors from another model; `kgmem rebuild` is the way to really re-embed).
// params: $tenant (string), $id (string), $embedding_model (string)
// returns: updated (count of memories)
:param tenant => 'demo';
:param id => 'img-root';
:param embedding_model => 'some-other-model@0';
MATCH (m:Memory {tenant: $tenant, id: $id})
SET m.embedding_model = $embedding_model
RETURN count(m) AS updated
