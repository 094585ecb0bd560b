// name: lifecycle/delete_memories
// Delete memories by id with every relationship they have (MENTIONS, CAUSED_BY, NEXT, SUPERSEDES,
// DERIVED_FROM). The callers rebuild slot and stream chains and remove orphaned entities afterwards.
// params: $tenant (string), $ids (list of strings)
// returns: deleted
:param tenant => 'demo';
:param ids => ['img-chat-1'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
DETACH DELETE m
RETURN count(m) AS deleted
