// name: memory/tenant_has_any
// Whether a tenant holds any memory at all (an empty answer on an empty tenant says so: a misspelt
// --tenant / KGMEM_TENANT, or nothing ingested yet). One index seek, stops at the first memory.
// params: $tenant (string)
// returns: has_any (boolean)
:param tenant => 'demo';
RETURN EXISTS { MATCH (:Memory {tenant: $tenant}) } AS has_any
