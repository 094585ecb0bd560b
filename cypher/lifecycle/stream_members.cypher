// name: lifecycle/stream_members
// What forgetting a stream asks to forget: the records of the tenant whose stream is $stream (not what was
// compiled or consolidated from them: forgetting a record takes that along) and, when $stream names a
// document (a memory of that id whose parts, in the stream, are DERIVED_FROM {transform: 'document/v1'} it),
// the document memory itself. Oldest first.
// params: $tenant (string), $stream (string)
// returns: id, document (true for the document memory)
:param tenant => 'demo';
:param stream => 'chat-maya';
CALL () {
  MATCH (m:Memory {tenant: $tenant, stream: $stream})
  WHERE coalesce(m.origin, 'record') = 'record'
  RETURN m
  UNION
  MATCH (m:Memory {tenant: $tenant, id: $stream})
  WHERE EXISTS { MATCH (p:Memory {tenant: $tenant, stream: $stream})-[:DERIVED_FROM {transform: 'document/v1'}]->(m) }
  RETURN m
}
RETURN m.id AS id, m.id = $stream AS document
ORDER BY m.at, m.id
