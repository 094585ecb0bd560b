// name: facts/memories_changed_since
// The plain-text memories that changed something since $since, in valid time: each record written (at) at or
// after $since that retired an earlier memory by an inferred SUPERSEDES link (what it replaced is read from its
// words), with the memory it retired. Newest first.
// params: $tenant (string), $since (datetime), $limit (int)
// returns: id, text, at, recorded_at, previous (map: id, text, at), current
:param tenant => 'demo';
:param since => datetime('2026-03-01T00:00:00Z');
:param limit => 50;
MATCH (m:Memory:Episode {tenant: $tenant}) USING INDEX m:Memory(tenant, at)
WHERE m.at >= $since AND m.origin = 'record'
MATCH (m)-[r:SUPERSEDES]->(prev:Memory)
WHERE coalesce(r.inferred, false) AND prev.tenant = $tenant
WITH m, prev, r ORDER BY coalesce(r.confidence, 0.0) DESC
WITH m, head(collect(prev)) AS prev
RETURN m.id AS id, m.text AS text, m.at AS at, m.recorded_at AS recorded_at, prev {.id, .text, .at} AS previous,
       NOT EXISTS { (m)<-[:SUPERSEDES]-(:Memory) } AS current
ORDER BY m.at DESC, m.id DESC
LIMIT $limit
