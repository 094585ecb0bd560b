// name: recall/entity
// Entity channel alone (used when a time window runs the channels apart): the entities the question names
// (the entity matcher) → eligible memories mentioning them, by entities matched, then the newest. The matcher
// and the eligibility rule are expanded from kgmem/store/rules.py, the same text as in
// recall/candidates.
// params: $key_ngrams (list of strings or null: every run of up to 8 words of the question's entity key), $named_keys (list of strings), $max_mentions (int),
//         $depth (int), $tenant (string), $user (string or null),
//         $start (datetime or null), $end (datetime or null), $at (datetime or null),
//         $include_superseded (bool), $kinds (list of strings or null)
// returns: entities (list of {key, name}), entity (list of {id, score: null}, best first) — always one row
:param key_ngrams => ['what', 'what did', 'did', 'did ravi', 'ravi', 'ravi say', 'say', 'say about', 'about', 'about onboarding', 'onboarding'];
:param named_keys => ['ravi'];
:param max_mentions => 300;
:param depth => 20;
:param tenant => 'demo';
:param user => null;
:param start => null;
:param end => null;
:param at => null;
:param include_superseded => false;
:param kinds => null;
// [[[cog from kgmem.store.rules import cog_entity_channel; cog_entity_channel() ]]]
CALL () {
  UNWIND coalesce($key_ngrams, []) AS wanted
  MATCH (e:Entity {tenant: $tenant, key: wanted})
  WHERE (coalesce(e.named_mentions, 0) > 0 OR e.key IN $named_keys)
    AND COUNT { (e)<-[:MENTIONS]-(:Memory) } <= $max_mentions
  RETURN collect(DISTINCT e) AS ents
}
CALL (ents) {
  UNWIND ents AS e
  MATCH (e)<-[:MENTIONS]-(m:Memory)
  WHERE m.tenant = $tenant
        AND m.merged_into IS NULL
        AND ($user IS NULL OR m.user = $user)
        AND ($kinds IS NULL OR m.kind IN $kinds)
        AND ($start IS NULL OR m.at >= $start)
        AND ($end IS NULL OR m.at < $end)
        AND (($at IS NULL AND ($include_superseded OR m.valid_to IS NULL))
             OR ($at IS NOT NULL AND m.at <= $at
                 AND ($include_superseded OR m.valid_to IS NULL OR m.valid_to > $at)))
  WITH m, count(DISTINCT e) AS matched
  ORDER BY matched DESC, m.at DESC, m.id ASC
  LIMIT $depth
  RETURN collect({id: m.id, score: null}) AS entity
}
// [[[end]]]
RETURN [e IN ents | {key: e.key, name: e.name}] AS entities, entity
