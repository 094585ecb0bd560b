// name: derived/context_affected
// The memories whose stream context includes one of $ids: each of them and up to three memories
// before and after it along NEXT, in the tenant only. Their derived context must be recomputed when one of
// $ids is written or forgotten.
// params: $tenant (string), $ids (list of strings)
// returns: id
:param tenant => 'demo';
:param ids => ['img-h2'];
UNWIND $ids AS wanted
MATCH (m0:Memory {tenant: $tenant, id: wanted})
MATCH (m0)-[:NEXT*0..3]-(a:Memory)
WHERE a.tenant = $tenant
RETURN DISTINCT a.id AS id
