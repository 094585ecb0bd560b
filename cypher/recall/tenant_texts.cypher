// name: recall/tenant_texts
// Every memory of a small tenant with the texts its keyword channels search (the text, and the derived
// stream contexts of kgmem/derived/context.py): what kgmem/query/own_keywords.py ranks by the tenant's own
// statistics. At most $limit memories, in one row: the driver spends ~30 µs on each record it receives, as
// long as the rest of a small tenant's recall.
// params: $tenant (string), $limit (int)
// returns: memories (list of maps: id, text, context_text, window_text (strings or null)), by id
:param tenant => 'demo';
:param limit => 2000;
MATCH (m:Memory {tenant: $tenant})
WITH m ORDER BY m.id LIMIT $limit
RETURN collect(m {.id, .text, .context_text, .window_text}) AS memories
