// name: schema/02_entity_key
// One :Entity per normalised key per tenant.
// params: none
// returns: nothing
CREATE CONSTRAINT entity_key IF NOT EXISTS
FOR (e:Entity) REQUIRE (e.tenant, e.key) IS UNIQUE
