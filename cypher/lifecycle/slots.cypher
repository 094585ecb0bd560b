// name: lifecycle/slots
// Every slot key the tenant's facts occupy (to rebuild all version chains).
// params: $tenant (string)
// returns: slot
:param tenant => 'demo';
MATCH (f:Memory:Fact {tenant: $tenant})
WHERE f.slot IS NOT NULL
RETURN DISTINCT f.slot AS slot
ORDER BY slot
