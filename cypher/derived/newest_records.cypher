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
// ordered as the (tenant, at) index is (the tenant first): the index hands the records newest first and the
// read stops after $limit eligible ones (ordered by m.at alone, the planner read and sorted every record of the
// tenant); the hint keeps that plan whatever the statistics say
MATCH (m:Memory:Episode) USING INDEX m:Memory(tenant, at)
WHERE m.tenant = $tenant AND m.at IS NOT NULL AND m.origin = 'record' AND m.merged_into IS NULL
WITH m ORDER BY m.tenant DESC, m.at DESC LIMIT $limit
WITH m WHERE NOT m.id IN $ids
RETURN max(m.at) AS latest
