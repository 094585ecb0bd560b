// name: ingest/relink_streams
// Keep (earlier)-[:NEXT]->(later) along each stream in (at, id) order. Only the tail of the stream from the
// predecessor of the earliest new memory onward is rebuilt, so appends cost O(batch) and a late arrival is
// spliced in at its place in time.
// params: $tenant (string), $streams (list of maps: stream (string), from_at (datetime))
// returns: next_created, next_removed
:param tenant => 'demo';
:param streams => [];
UNWIND $streams AS s
CALL (s) {
  OPTIONAL MATCH (p:Memory {tenant: $tenant, stream: s.stream})
  WHERE p.at < s.from_at
  WITH s, p ORDER BY p.at DESC LIMIT 1
  WITH s, coalesce(p.at, s.from_at) AS start
  MATCH (m:Memory {tenant: $tenant, stream: s.stream})
  WHERE m.at >= start
  WITH m ORDER BY m.at ASC, m.id ASC
  WITH collect(m) AS win
  UNWIND range(0, size(win) - 1) AS i
  WITH win[i] AS m, CASE WHEN i < size(win) - 1 THEN win[i + 1] END AS nxt
  CALL (m, nxt) {
    OPTIONAL MATCH (m)-[r:NEXT]->(x)
    WHERE nxt IS NULL OR x <> nxt
    DELETE r
    RETURN count(r) AS removed
  }
  CALL (m, nxt) {
    OPTIONAL MATCH (m)-[existing:NEXT]->(nxt)
    WITH m, nxt, existing WHERE nxt IS NOT NULL
    MERGE (m)-[:NEXT]->(nxt)
    RETURN count(CASE WHEN existing IS NULL THEN 1 END) AS created
  }
  RETURN sum(created) AS created, sum(removed) AS removed
}
RETURN sum(created) AS next_created, sum(removed) AS next_removed
