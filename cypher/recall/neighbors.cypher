// name: recall/neighbors
// Context around hits: up to $hops memories before and after each along NEXT, in the same tenant only.
// params: $tenant (string), $ids (list of strings), $hops (int)
// returns: id, neighbor, text, at, offset (negative = before)
:param tenant => 'demo';
:param ids => ['img-root'];
:param hops => 1;
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
CALL (m) {
  MATCH p = (m)-[:NEXT*1..5]->(n:Memory)
  WHERE n.tenant = $tenant AND length(p) <= $hops
  RETURN n, length(p) AS offset
  UNION
  MATCH p = (n:Memory)-[:NEXT*1..5]->(m)
  WHERE n.tenant = $tenant AND length(p) <= $hops
  RETURN n, -length(p) AS offset
}
RETURN m.id AS id, n.id AS neighbor, n.text AS text, n.at AS at, offset
ORDER BY id, offset
