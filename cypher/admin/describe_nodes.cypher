// name: admin/describe_nodes
// Every (labels, property, value type) combination among the tenant's nodes: what the graph really holds,
// compared with the neomodel classes in kgmem/store/models.py by the tests.
// params: $tenant (string)
// returns: labels (list of strings), key, type (valueType name), nodes (how many carry it)
:param tenant => 'demo';
MATCH (n)
WHERE n.tenant = $tenant
UNWIND keys(n) AS key
RETURN labels(n) AS labels, key, valueType(n[key]) AS type, count(*) AS nodes
ORDER BY key
