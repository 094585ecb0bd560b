// name: timeline/around
// What happened before and after a memory: up to $before memories back and $after forward along its
// stream's NEXT chain (offset < 0 before, 0 the memory itself, > 0 after), in the same tenant.
// params: $tenant (string), $memory_id (string), $before (int), $after (int)
// returns: id, text, at, kind, stream, offset
:param tenant => 'demo';
:param memory_id => COLLECT { MATCH (m:Memory {tenant: 'demo'})-[:NEXT]->() RETURN m.id LIMIT 1 }[0];
:param before => 3;
:param after => 3;
MATCH (m:Memory {tenant: $tenant, id: $memory_id})
CALL (m) {
  RETURN m AS n, 0 AS offset
  UNION
  MATCH p = (n:Memory)-[:NEXT*1..50]->(m)
  WHERE length(p) <= $before AND n.tenant = $tenant
  RETURN n, -length(p) AS offset
  UNION
  MATCH p = (m)-[:NEXT*1..50]->(n:Memory)
  WHERE length(p) <= $after AND n.tenant = $tenant
  RETURN n, length(p) AS offset
}
RETURN n.id AS id, n.text AS text, n.at AS at, n.kind AS kind, n.stream AS stream, offset
ORDER BY offset
