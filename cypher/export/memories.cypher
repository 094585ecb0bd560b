// name: export/memories
// Every memory of a tenant with all its properties except its vectors (the embedding and a cause clause's
// clause_embedding, derived and rebuilt from the text), ordered by id: the first half of an export.
// params: $tenant (string)
// returns: id, labels, props (list of [key, value] pairs, sorted by key)
:param tenant => 'demo';
MATCH (m:Memory {tenant: $tenant})
WITH m, [k IN keys(m) WHERE NOT k IN ['embedding', 'clause_embedding']] AS ks
UNWIND ks AS k
WITH m, k ORDER BY k
WITH m, collect(k) AS sorted_keys
RETURN m.id AS id, [l IN labels(m) WHERE l <> 'Memory'] AS labels,
       [k IN sorted_keys | [k, m[k]]] AS props
ORDER BY id
