// name: lifecycle/cooc_reinforce
// (a:Entity)-[:CO_OCCURS {weight, count, updated}]->(b:Entity), a.key < b.key, from the record memories that
// mention both. count is the number of such memories; a new pair starts at weight = count, a known pair
// gains what its count grew by since the last run (new co-occurrences reinforce, old ones only decay).
// params: $tenant (string), $now (datetime)
// returns: pairs, created, reinforced
:param tenant => 'demo';
:param now => datetime();
MATCH (m:Memory {tenant: $tenant})-[:MENTIONS]->(a:Entity)
WHERE coalesce(m.origin, 'record') = 'record'
MATCH (m)-[:MENTIONS]->(b:Entity)
WHERE a.key < b.key
WITH a, b, count(DISTINCT m) AS n
OPTIONAL MATCH (a)-[old:CO_OCCURS]->(b)
WITH a, b, n, old, n - coalesce(old.count, 0) AS fresh
MERGE (a)-[r:CO_OCCURS]->(b)
ON CREATE SET r.weight = toFloat(n), r.count = n, r.updated = $now
ON MATCH SET r.weight = r.weight + CASE WHEN fresh > 0 THEN toFloat(fresh) ELSE 0.0 END, r.count = n,
             r.updated = $now
RETURN count(r) AS pairs, count(CASE WHEN old IS NULL THEN 1 END) AS created,
       count(CASE WHEN old IS NOT NULL AND fresh > 0 THEN 1 END) AS reinforced
