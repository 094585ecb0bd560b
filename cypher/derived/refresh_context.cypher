// name: derived/refresh_context
// Recompute the derived stream context of the memories $ids (kgmem/derived/context.py, transform context/v1):
//   context_text      the previous memory's text, a newline, the memory's text;
//   window_text       up to three memories before, the memory, up to three after, one per line;
//   context_embedding normalise($prev_weight · previous vector + own vector)   (no model call: the stored vectors);
//   wide_embedding    normalise(previous + own + next vector); both 32-bit floats (db.create.setNodeVectorProperty).
// A memory with no neighbour in its exchange (or no stream) reads as itself: its own text and vector, so every
// memory is in every context channel and streamed memories get no extra votes.
// Neighbours count only while they belong to the same exchange: each NEXT step on the way at most $gap_seconds
// apart (a ticket queue whose entries are days apart gives each memory its own text and vector).
// params: $tenant (string), $ids (list of strings), $prev_weight (float), $gap_seconds (int)
// returns: refreshed (count)
:param tenant => 'demo';
:param ids => ['img-h2'];
:param prev_weight => 1.0;
:param gap_seconds => 3600;
UNWIND $ids AS wanted
MATCH (a:Memory {tenant: $tenant, id: wanted})
WHERE a.embedding IS NOT NULL
CALL (a) {
  OPTIONAL MATCH q = (b:Memory)-[:NEXT*1..3]->(a)
  WHERE b.tenant = $tenant
    AND all(r IN relationships(q) WHERE duration.inSeconds(startNode(r).at, endNode(r).at).seconds <= $gap_seconds)
  WITH b, length(q) AS d ORDER BY d DESC
  RETURN [x IN collect(b) WHERE x IS NOT NULL] AS before
}
CALL (a) {
  OPTIONAL MATCH q = (a)-[:NEXT*1..3]->(c:Memory)
  WHERE c.tenant = $tenant
    AND all(r IN relationships(q) WHERE duration.inSeconds(startNode(r).at, endNode(r).at).seconds <= $gap_seconds)
  WITH c, length(q) AS d ORDER BY d ASC
  RETURN [x IN collect(c) WHERE x IS NOT NULL] AS after
}
WITH a, before, after,
     CASE WHEN size(before) > 0 THEN before[-1] END AS p,
     CASE WHEN size(after) > 0 THEN after[0] END AS n
// the vectors are read into values once: indexing a property inside the comprehension (p.embedding[i]) reads
// the whole stored list again for every element, 384 times per vector (it made this statement ~10× slower)
WITH a, before, after, p, a.embedding AS av,
     CASE WHEN p IS NULL THEN null ELSE p.embedding END AS pv,
     CASE WHEN n IS NULL THEN null ELSE n.embedding END AS nv
WITH a, before, after, p, av,
     [i IN range(0, size(av) - 1) | av[i] + $prev_weight * coalesce(pv[i], 0.0)] AS ctx,
     [i IN range(0, size(av) - 1) | av[i] + coalesce(pv[i], 0.0) + coalesce(nv[i], 0.0)] AS wide
WITH a, before, after, p, av, ctx, wide,
     sqrt(reduce(s = 0.0, x IN ctx | s + x * x)) AS ctx_norm,
     sqrt(reduce(s = 0.0, x IN wide | s + x * x)) AS wide_norm
SET a.context_text = CASE WHEN p IS NULL THEN a.text ELSE p.text + '\n' + a.text END,
    a.window_text = reduce(s = toString(head(before + [a]).text),
                           t IN [x IN tail(before + [a]) + after | x.text] | s + '\n' + t)
// stored as 32-bit floats, like the embedding itself (a Cypher SET stores a list of floats as 64-bit: twice the
// bytes per vector in the store and the page cache); a sum of zero (opposite neighbours) reads as the memory
WITH a, av,
     CASE WHEN ctx_norm = 0 THEN av ELSE [x IN ctx | x / ctx_norm] END AS context_vector,
     CASE WHEN wide_norm = 0 THEN av ELSE [x IN wide | x / wide_norm] END AS wide_vector
CALL db.create.setNodeVectorProperty(a, 'context_embedding', context_vector)
CALL db.create.setNodeVectorProperty(a, 'wide_embedding', wide_vector)
RETURN count(a) AS refreshed
