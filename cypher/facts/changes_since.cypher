// name: facts/changes_since
// What changed in a tenant since $since, in valid time: each fact version that took effect (at) at or after
// $since, with the version it superseded (if any). Newest first. The index hint keeps the plan on the
// (tenant, at) index when one tenant dwarfs the others. current: the version holds at $now (took effect by
// then, and no later version had); a version dated after $now is scheduled, not current.
// params: $tenant (string), $since (datetime), $limit (int), $now (datetime)
// returns: id, subject, predicate, object, polarity, text, at, recorded_at, previous (map or null), current
:param tenant => 'demo';
:param since => datetime('2026-03-01T00:00:00Z');
:param limit => 50;
:param now => datetime();
MATCH (f:Memory:Fact {tenant: $tenant}) USING INDEX f:Memory(tenant, at)
WHERE f.at >= $since
OPTIONAL MATCH (f)-[:SUPERSEDES]->(prev:Fact)
RETURN f.id AS id, f.subject AS subject, f.predicate AS predicate, f.object AS object, f.polarity AS polarity,
       f.text AS text, f.at AS at, f.recorded_at AS recorded_at,
       CASE WHEN prev IS NULL THEN null ELSE prev {.id, .object, .polarity, .at} END AS previous,
       f.at <= $now AND (f.valid_to IS NULL OR f.valid_to > $now) AS current
ORDER BY f.at DESC, f.id DESC
LIMIT $limit
