// name: derived/memories_naming
// For each name, the memories of the tenant whose text the fulltext index finds the name in (a phrase query,
// $names[].lucene, with the tenant's clause $tenant_scope required), at most $limit each: the memories that may
// mention an entity learned after they were written (the caller reads each text for the name as the write path does); not the
// facts compiled from a record, which take the names of their value from their record as it was written, nor
// a record that named its entities (they are its mentions).
// params: $tenant (string), $tenant_scope (string: kgmem.query.lucene.tenant_scope), $names (list of maps: key,
//         lucene: the name's phrase query), $limit (int)
// returns: key, memories (list of {id, text})
:param tenant => 'demo';
:param tenant_scope => '+tenant:"demo"^0';
:param names => [{key: 'qx-7741', lucene: '+text:"qx\\-7741"'}];
:param limit => 1000;
UNWIND $names AS n
CALL (n) {
  CALL db.index.fulltext.queryNodes('memory_text', $tenant_scope + ' ' + n.lucene, {limit: $limit}) YIELD node AS m
  WITH m WHERE m.tenant = $tenant AND m.text IS NOT NULL AND coalesce(m.origin, 'record') <> 'compiled'
    AND NOT coalesce(m.entities_given, false)
  RETURN collect({id: m.id, text: m.text}) AS memories
}
RETURN n.key AS key, memories
