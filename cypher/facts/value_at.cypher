// name: facts/value_at
// The value of one slot at a time: the version with the latest valid time (at) not after $at, as the store
// knew it at $known_at (versions recorded later are ignored). $at null = now; $known_at null = everything.
// valid_to is the at of the next version in that same view (null while it is current).
// params: $tenant (string), $slot (string, 16 hex), $at (datetime or null), $known_at (datetime or null)
// retired_by: the plain-text memories that retired this version (or the memory it was compiled from) by an
// inferred SUPERSEDES by then ("Alice left, Bob runs the team now" after "my manager is Alice"): the slot's
// chain says nothing newer, the words do. Strongest first.
// returns: id, subject, predicate, object, polarity, text, at, recorded_at, version, source, valid_to,
//          retired_by (list of {id, text, at, confidence, by, cue}) (0 or 1 row)
:param tenant => 'demo';
:param slot => COLLECT { MATCH (f:Fact {tenant: 'demo', subject: 'maya', predicate: 'lives_in'}) RETURN f.slot LIMIT 1 }[0];
:param at => datetime('2026-03-01T00:00:00Z');
:param known_at => null;
MATCH (f:Memory:Fact {slot: $slot})
WHERE f.tenant = $tenant
  AND ($at IS NULL OR f.at <= $at)
  AND ($known_at IS NULL OR f.recorded_at <= $known_at)
WITH f ORDER BY f.at DESC, f.recorded_at DESC, f.id DESC LIMIT 1
OPTIONAL MATCH (later:Memory:Fact {slot: $slot})
WHERE later.tenant = $tenant AND later.at > f.at
  AND ($known_at IS NULL OR later.recorded_at <= $known_at)
WITH f, min(later.at) AS valid_to
OPTIONAL MATCH (f)-[:DERIVED_FROM*0..1]->(:Memory)<-[r:SUPERSEDES]-(s:Memory)
WHERE coalesce(r.inferred, false) AND s.tenant = $tenant AND s.merged_into IS NULL AND s.at > f.at
  AND ($at IS NULL OR s.at <= $at) AND ($known_at IS NULL OR s.recorded_at <= $known_at)
WITH f, valid_to, r, s ORDER BY r.confidence DESC, s.at DESC, s.id
WITH f, valid_to,
     collect(CASE WHEN s IS NULL THEN null
             ELSE {id: s.id, text: s.text, at: s.at, confidence: r.confidence, by: r.by, cue: r.cue} END) AS retired_by
RETURN f.id AS id, f.subject AS subject, f.predicate AS predicate, f.object AS object, f.polarity AS polarity,
       f.text AS text, f.at AS at, f.recorded_at AS recorded_at, f.version AS version, f.source AS source,
       valid_to, retired_by
