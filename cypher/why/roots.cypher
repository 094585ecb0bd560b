// name: why/roots
// Walk CAUSED_BY from a symptom to its roots, bounded by $max_depth and safe on cycles: a root is the end
// of a path whose memory has no cause outside that path (or where the depth bound stops the walk, marked
// truncated). Links whose cause is later than $at are ignored when $at is given (as-of why).
// Each path comes with its confidence: the product of its links' confidences (explicit links are 1.0).
// params: $tenant (string), $symptom_id (string), $max_depth (int, 1..10), $at (datetime or null),
//         $min_confidence (float)
// returns: root_id, root_text, root_at, depth, confidence, inferred (any inferred link on the path),
//          truncated, path (list of ids, symptom first)
:param tenant => 'demo';
:param symptom_id => COLLECT { MATCH (m:Memory {tenant: 'demo'})-[:CAUSED_BY]->() WHERE NOT ()-[:CAUSED_BY]->(m) RETURN m.id LIMIT 1 }[0];
:param max_depth => 6;
:param at => null;
:param min_confidence => 0.0;
MATCH (s:Memory {tenant: $tenant, id: $symptom_id})
MATCH p = (s)-[:CAUSED_BY*1..10]->(r:Memory)
WHERE length(p) <= $max_depth
  AND all(n IN nodes(p) WHERE n.tenant = $tenant AND ($at IS NULL OR n.at <= $at))
WITH p, r, nodes(p) AS ns, relationships(p) AS rs
WHERE size([i IN range(0, size(ns) - 1) WHERE NOT ns[i] IN ns[0..i]]) = size(ns)
WITH p, r, ns, rs,
     reduce(c = 1.0, rel IN rs | c * coalesce(rel.confidence, 1.0)) AS confidence,
     any(rel IN rs WHERE coalesce(rel.inferred, false)) AS inferred,
     EXISTS { MATCH (r)-[:CAUSED_BY]->(x:Memory) WHERE NOT x IN ns AND x.tenant = $tenant AND ($at IS NULL OR x.at <= $at) } AS has_more
WHERE confidence >= $min_confidence AND (NOT has_more OR length(p) = $max_depth)
RETURN r.id AS root_id, r.text AS root_text, r.at AS root_at, length(p) AS depth, confidence, inferred,
       has_more AS truncated, [n IN ns | n.id] AS path
ORDER BY confidence DESC, depth DESC, root_at ASC, root_id ASC
