// name: derived/newest_records
// The valid time of the tenant's newest plain-text record outside $ids (null when it holds none): a later
// record already stored may retire one of $ids; with none, the inferred-supersession pass pairs $ids among
// themselves without the vector index. Of the $limit (= size($ids) + 1) newest records at least one is
// outside $ids, so only those are read.
// params: $tenant (string), $ids (list of strings), $limit (int)
// returns: latest (datetime or null)
:param tenant => 'demo';
:param ids => ['c1', 'c2'];
:param limit => 3;
MATCH (m:Memory:Episode {tenant: $tenant})
WHERE m.origin = 'record' AND m.merged_into IS NULL AND m.at IS NOT NULL
WITH m ORDER BY m.at DESC LIMIT $limit
WITH m WHERE NOT m.id IN $ids
RETURN max(m.at) AS latest
