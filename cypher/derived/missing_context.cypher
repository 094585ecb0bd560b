// name: derived/missing_context
// Memories of the tenant with a vector but no derived context yet (compiled facts and consolidated memories
// written beside the records, or memories from before the context layer existed).
// params: $tenant (string)
// returns: id
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})
WHERE m.embedding IS NOT NULL AND m.context_embedding IS NULL
RETURN m.id AS id
ORDER BY id
