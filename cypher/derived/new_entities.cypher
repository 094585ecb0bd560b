// name: derived/new_entities
// The entities an ingest created (created_at is the ingest's recorded time) that were written like a name: their
// key, name and aliases, the names other memories of the tenant may mention too.
// params: $tenant (string), $recorded_at (datetime)
// returns: key, name, aliases
:param tenant => 'demo';
:param recorded_at => datetime('2026-03-01T00:00:00Z');
MATCH (e:Entity {tenant: $tenant})
WHERE e.created_at = $recorded_at AND coalesce(e.named_mentions, 0) > 0
RETURN e.key AS key, e.name AS name, coalesce(e.aliases, []) AS aliases
ORDER BY key
