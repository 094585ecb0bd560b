// name: admin/index_states
// Every index with its state and population progress (schema readiness).
// params: none
// returns: name, type, state, populationPercent, labelsOrTypes, properties, options
SHOW INDEXES YIELD name, type, state, populationPercent, labelsOrTypes, properties, options
RETURN name, type, state, populationPercent, labelsOrTypes, properties, options
ORDER BY name
