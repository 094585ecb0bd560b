// name: lifecycle/cooc_decay
// Co-occurrence weights fade: every CO_OCCURS edge between the tenant's entities is multiplied by $decay,
// never below $floor, at each consolidation run.
// params: $tenant (string), $decay (float), $floor (float), $now (datetime)
// returns: decayed
:param tenant => 'demo';
:param decay => 0.95;
:param floor => 0.1;
:param now => datetime();
MATCH (a:Entity {tenant: $tenant})-[r:CO_OCCURS]->(b:Entity)
WHERE b.tenant = $tenant
SET r.weight = CASE WHEN r.weight * $decay < $floor THEN $floor ELSE r.weight * $decay END,
    r.updated = $now
RETURN count(r) AS decayed
