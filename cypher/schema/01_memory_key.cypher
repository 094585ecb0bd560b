// name: schema/01_memory_key
// Memory ids are unique per tenant (two tenants may use the same id).
// params: none
// returns: nothing
CREATE CONSTRAINT memory_key IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.tenant, m.id) IS UNIQUE
