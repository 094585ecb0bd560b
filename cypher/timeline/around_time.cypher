// name: timeline/around_time
// The memories of a tenant nearest in valid time before and after a memory (any stream): $before earlier
// ones and $after later ones, in time order (offset < 0 before, 0 the memory itself, > 0 after).
// params: $tenant (string), $memory_id (string), $before (int), $after (int)
// returns: id, text, at, kind, stream, offset
:param tenant => 'demo';
:param memory_id => COLLECT { MATCH (m:Memory {tenant: 'demo'}) RETURN m.id LIMIT 1 }[0];
:param before => 3;
:param after => 3;
MATCH (m:Memory {tenant: $tenant, id: $memory_id})
CALL (m) {
  RETURN m AS n, 0 AS offset
  UNION
  MATCH (n:Memory {tenant: $tenant})
  WHERE n.at < m.at OR (n.at = m.at AND n.id < m.id)
  WITH n ORDER BY n.at DESC, n.id DESC LIMIT $before
  WITH collect(n) AS ns
  UNWIND range(0, size(ns) - 1) AS i
  RETURN ns[i] AS n, -(i + 1) AS offset
  UNION
  MATCH (n:Memory {tenant: $tenant})
  WHERE n.at > m.at OR (n.at = m.at AND n.id > m.id)
  WITH n ORDER BY n.at ASC, n.id ASC LIMIT $after
  WITH collect(n) AS ns
  UNWIND range(0, size(ns) - 1) AS i
  RETURN ns[i] AS n, i + 1 AS offset
}
RETURN n.id AS id, n.text AS text, n.at AS at, n.kind AS kind, n.stream AS stream, offset
ORDER BY offset
