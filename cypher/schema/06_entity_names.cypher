// name: schema/06_entity_names
// Fulltext over entity names and aliases, used to resolve entity mentions in a question.
// params: none
// returns: nothing
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS
FOR (e:Entity) ON EACH [e.name, e.alias_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: false}}
