// name: derived/unchecked_ids
// Of $ids, the plain-text records the inferred-supersession pass has not marked with $transform: a client
// killed after its write but before that pass, or a pass of an older version, left them.
// params: $tenant (string), $ids (list of strings), $transform (string)
// returns: id
:param tenant => 'demo';
:param ids => ['c1'];
:param transform => 'supersession/v3';
UNWIND $ids AS wanted
MATCH (m:Memory:Episode {tenant: $tenant, id: wanted})
WHERE m.origin = 'record' AND coalesce(m.supersession, '') <> $transform
RETURN m.id AS id
