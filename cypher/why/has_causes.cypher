// name: why/has_causes
// Which of the given memories have at least one recorded cause (CAUSED_BY) in the tenant.
// params: $tenant (string), $ids (list of strings), $at (datetime or null)
// returns: id, causes (count)
:param tenant => 'demo';
:param ids => ['img-symptom'];
:param at => null;
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
RETURN m.id AS id,
       COUNT { MATCH (m)-[:CAUSED_BY]->(c:Memory) WHERE c.tenant = $tenant AND ($at IS NULL OR c.at <= $at) } AS causes
