// name: derived/stream_candidates
// Earlier memories of the same stream as an effect (the incident channel or conversation it was said in),
// most recent first, with the cosine of each to a cause clause: causes are usually told in the same stream.
// params: $tenant (string), $stream (string), $before (datetime), $vector (list of 384 floats), $limit (int)
// returns: id, score (normalised cosine)
:param tenant => 'demo';
:param stream => 'inc-images';
:param before => datetime('2026-03-14T00:00:00Z');
:param vector => COLLECT { MATCH (m:Memory {tenant: 'demo', id: 'img-root'}) RETURN m.embedding }[0];
:param limit => 50;
MATCH (m:Memory {tenant: $tenant, stream: $stream})
WHERE m.at < $before AND m.embedding IS NOT NULL
WITH m ORDER BY m.at DESC LIMIT $limit
RETURN m.id AS id, vector.similarity.cosine(m.embedding, $vector) AS score
ORDER BY score DESC
