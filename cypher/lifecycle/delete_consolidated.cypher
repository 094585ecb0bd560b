// name: lifecycle/delete_consolidated
// Remove consolidated memories (merges, pattern summaries) by id; the sources of a merge stop being
// merged_into it and show up in recall again. Record memories are never touched by this statement.
// params: $tenant (string), $ids (list of strings)
// returns: removed, unmerged (sources released)
:param tenant => 'demo';
:param ids => ['no-such-summary'];
UNWIND $ids AS wanted
MATCH (c:Memory {tenant: $tenant, id: wanted})
WHERE c.origin = 'consolidated'
CALL (c) {
  OPTIONAL MATCH (c)-[:DERIVED_FROM]->(s:Memory)
  WHERE s.merged_into = c.id
  REMOVE s.merged_into
  RETURN count(s) AS unmerged
}
DETACH DELETE c
RETURN count(c) AS removed, sum(unmerged) AS unmerged
