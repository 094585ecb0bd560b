// name: facts/history
// Every version of one slot, oldest first, walking the SUPERSEDES chain's order (valid time), with
// valid_to (the next version's at); current is read from them (Fact.current: valid at the present time, so a
// version dated in the future is not current yet). $known_at restricts to what was recorded by then.
// params: $tenant (string), $slot (string), $known_at (datetime or null)
// returns: id, subject, predicate, object, polarity, text, at, recorded_at, version, source, valid_to
:param tenant => 'demo';
:param slot => COLLECT { MATCH (f:Fact {tenant: 'demo', subject: 'maya', predicate: 'lives_in'}) RETURN f.slot LIMIT 1 }[0];
:param known_at => null;
MATCH (f:Memory:Fact {slot: $slot})
WHERE f.tenant = $tenant AND ($known_at IS NULL OR f.recorded_at <= $known_at)
WITH f ORDER BY f.at ASC, f.recorded_at ASC, f.id ASC
WITH collect(f) AS chain
UNWIND range(0, size(chain) - 1) AS i
WITH chain[i] AS f, CASE WHEN i < size(chain) - 1 THEN chain[i + 1].at END AS valid_to
RETURN f.id AS id, f.subject AS subject, f.predicate AS predicate, f.object AS object, f.polarity AS polarity,
       f.text AS text, f.at AS at, f.recorded_at AS recorded_at, f.version AS version, f.source AS source,
       valid_to
