// name: derived/inference_candidates
// Memories (by id) that may state their cause in words: their text and time, and whether they already
// have an explicit (not inferred) cause — explicit caused_by always wins over inference.
// params: $tenant (string), $ids (list of strings)
// returns: id, text, at, stream, explicit_causes
:param tenant => 'demo';
:param ids => ['img-h1'];
UNWIND $ids AS wanted
MATCH (m:Memory {tenant: $tenant, id: wanted})
WHERE NOT m:Fact OR m.origin <> 'compiled'
RETURN m.id AS id, m.text AS text, m.at AS at, m.stream AS stream,
       COUNT { (m)-[r:CAUSED_BY]->() WHERE NOT coalesce(r.inferred, false) } AS explicit_causes
