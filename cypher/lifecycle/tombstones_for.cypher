// name: lifecycle/tombstones_for
// Which of the given ids or content keys were forgotten in the tenant (for ingest: a forgotten record must
// not come back silently). matched says whether the id or only the content key matched.
// params: $tenant (string), $ids (list of strings), $content_keys (list of strings)
// returns: id, content_key, forgotten_at, reason, matched ('id' or 'content_key')
:param tenant => 'demo';
:param ids => ['img-root', 'browser-forgotten'];
:param content_keys => [];
MATCH (t:Tombstone {tenant: $tenant})
WHERE t.id IN $ids OR t.content_key IN $content_keys
RETURN t.id AS id, t.content_key AS content_key, t.forgotten_at AS forgotten_at, t.reason AS reason,
       CASE WHEN t.id IN $ids THEN 'id' ELSE 'content_key' END AS matched
ORDER BY id
