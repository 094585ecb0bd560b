// name: admin/describe_relationships
// Every relationship type leaving the tenant's nodes, with the start node's labels and the property keys
// the edges carry: compared with the neomodel classes in kgmem/store/models.py by the tests.
// params: $tenant (string)
// returns: type, labels (of the start node), keys (property keys seen on such edges), edges (count)
:param tenant => 'demo';
MATCH (a)-[r]->()
WHERE a.tenant = $tenant
WITH type(r) AS type, labels(a) AS labels, r
UNWIND CASE WHEN size(keys(r)) = 0 THEN [null] ELSE keys(r) END AS key
RETURN type, labels, collect(DISTINCT key) AS keys, count(DISTINCT r) AS edges
ORDER BY type
