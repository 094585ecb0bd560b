// name: lifecycle/cooc_recount
// After forgetting: recount the CO_OCCURS edges touching the given entities from the record memories left;
// an edge whose pair no memory mentions together any more is removed, and no weight stays above its count.
// params: $tenant (string), $keys (list of strings)
// returns: recounted, removed
:param tenant => 'demo';
:param keys => ['ravi'];
MATCH (a:Entity {tenant: $tenant})-[r:CO_OCCURS]-(:Entity)
WHERE a.key IN $keys
WITH DISTINCT r
WITH r, startNode(r) AS x, endNode(r) AS y
WITH r, COUNT { MATCH (x)<-[:MENTIONS]-(m:Memory)-[:MENTIONS]->(y) WHERE coalesce(m.origin, 'record') = 'record' } AS n
SET r.count = n,
    r.weight = CASE WHEN n > 0 AND r.weight > n THEN toFloat(n) ELSE r.weight END
WITH r, n, CASE WHEN n = 0 THEN [r] ELSE [] END AS gone
FOREACH (g IN gone | DELETE g)
RETURN count(r) AS recounted, sum(size(gone)) AS removed
