// name: recall/eligible_count
// How many memories of the tenant pass the eligibility filters inside a time window (uses the
// (tenant, at) range index). The vector channel scans exactly when this set is small.
// params: $tenant (string), $user (string or null), $start (datetime or null), $end (datetime or null),
//         $at (datetime or null), $include_superseded (bool), $kinds (list of strings or null), $limit (int)
// returns: eligible (count, capped at $limit)
:param tenant => 'demo';
:param user => null;
:param start => datetime('2026-01-01T00:00:00Z');
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
:param limit => 20000;
MATCH (m:Memory {tenant: $tenant})
WHERE m.at >= coalesce($start, datetime('0001-01-01T00:00:00Z'))
  AND m.at < coalesce($end, $at, datetime('9999-12-31T00:00:00Z'))
  // [[[cog from kgmem.store.rules import cog_where; cog_where('m', '  ', tenant=False, continued=True) ]]]
  AND m.merged_into IS NULL
  AND ($user IS NULL OR m.user = $user)
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($start IS NULL OR m.at >= $start)
  AND ($end IS NULL OR m.at < $end)
  AND (($at IS NULL AND ($include_superseded OR m.valid_to IS NULL))
       OR ($at IS NOT NULL AND m.at <= $at
           AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $at)))
  // [[[end]]]
WITH m LIMIT $limit
RETURN count(m) AS eligible
