// name: recall/tenant_version
// How many memories a tenant holds (counted up to $limit + 1: more means "not a small tenant") and when the last
// was recorded: the version of a small tenant's own keyword statistics (kgmem/query/own_keywords.py), which
// are rebuilt when it changes.
// params: $tenant (string), $limit (int)
// returns: memories (int, at most $limit + 1), last (datetime or null) — always one row
:param tenant => 'demo';
:param limit => 2000;
MATCH (m:Memory {tenant: $tenant})
WITH m LIMIT $limit + 1
RETURN count(m) AS memories, max(m.recorded_at) AS last
