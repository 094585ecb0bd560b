// name: recall/tenant_texts
// Every memory of a small tenant with the texts its keyword channels search (the text, and the derived
// stream contexts of kgmem/derived/context.py): what kgmem/query/own_keywords.py ranks by the tenant's own
// statistics. At most $limit rows.
// params: $tenant (string), $limit (int)
// returns: id, text, context_text, window_text (strings or null), one row per memory, by id
:param tenant => 'demo';
:param limit => 2000;
MATCH (m:Memory {tenant: $tenant})
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.text AS text, m.context_text AS context_text, m.window_text AS window_text
