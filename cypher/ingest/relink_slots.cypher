// name: ingest/relink_slots
// Rebuild the version chain of each slot from valid time: versions ordered by (at, recorded_at, id);
// (newer)-[:SUPERSEDES]->(older) between neighbours; valid_to of each version is the at of the next;
// the last is current (valid_to null). Insertion order therefore never matters.
// params: $tenant (string), $slots (list of slot keys)
// returns: superseded (versions that stopped being current), edges_created, edges_removed
:param tenant => 'demo';
:param slots => [];
UNWIND $slots AS slot
CALL (slot) {
  MATCH (f:Memory:Fact {slot: slot})
  WHERE f.tenant = $tenant
  WITH f ORDER BY f.at ASC, f.recorded_at ASC, f.id ASC
  WITH collect(f) AS chain
  UNWIND range(0, size(chain) - 1) AS i
  WITH chain[i] AS f, i,
       CASE WHEN i > 0 THEN chain[i - 1] END AS prev,
       CASE WHEN i < size(chain) - 1 THEN chain[i + 1] END AS nxt
  WITH f, i, prev, nxt, (nxt IS NOT NULL AND f.valid_to IS NULL) AS newly_superseded
  SET f.valid_to = nxt.at, f.version = i + 1
  WITH f, prev, newly_superseded
  CALL (f, prev) {
    OPTIONAL MATCH (f)-[r:SUPERSEDES]->(x)
    WHERE prev IS NULL OR x <> prev
    DELETE r
    RETURN count(r) AS removed
  }
  CALL (f, prev) {
    OPTIONAL MATCH (f)-[existing:SUPERSEDES]->(prev)
    WITH f, prev, existing WHERE prev IS NOT NULL
    MERGE (f)-[:SUPERSEDES]->(prev)
    RETURN count(CASE WHEN existing IS NULL THEN 1 END) AS created
  }
  RETURN count(CASE WHEN newly_superseded THEN 1 END) AS superseded, sum(created) AS created, sum(removed) AS removed
}
RETURN sum(superseded) AS superseded, sum(created) AS edges_created, sum(removed) AS edges_removed
