// name: recall/entities
// Entity resolution for a question: entities of the tenant whose name or alias matches the question's
// words in the entity_names fulltext index (the caller keeps only those whose whole name occurs in the
// question), with how many of their mentions were name-like.
// params: $lucene (string), $tenant (string), $fetch (int)
// returns: key, name, aliases, score, named_mentions
:param lucene => 'ravi';
:param tenant => 'demo';
:param fetch => 50;
CALL db.index.fulltext.queryNodes('entity_names', $lucene, {limit: $fetch}) YIELD node AS e, score
WHERE e.tenant = $tenant
RETURN e.key AS key, e.name AS name, e.aliases AS aliases, score,
       coalesce(e.named_mentions, 0) AS named_mentions
ORDER BY score DESC
