// name: lifecycle/import_entities
// Restore exported entities into an empty tenant with all their properties.
// params: $tenant (string), $rows (list of maps: key, props (map))
// returns: written
:param tenant => 'browser-import-demo';
:param rows => [{key: 'ravi', props: {name: 'Ravi', aliases: ['Ravi'], alias_text: ' Ravi', named_mentions: 1}}];
UNWIND $rows AS row
CREATE (e:Entity)
SET e = row.props, e.tenant = $tenant, e.key = row.key
RETURN count(e) AS written
