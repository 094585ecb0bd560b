// name: admin/embedding_model
// The embedding model of one memory of the tenant that has one (checked against the loaded model before
// the tenant is read or written: vectors of two models are not comparable).
// params: $tenant (string)
// returns: embedding_model (string; no row for a tenant without embedded memories)
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})
WHERE m.embedding_model IS NOT NULL
RETURN m.embedding_model AS embedding_model
LIMIT 1
