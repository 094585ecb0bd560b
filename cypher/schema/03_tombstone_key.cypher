// name: schema/03_tombstone_key
// A forgotten memory leaves one :Tombstone (id, content_key, time; no content) per tenant and id.
// params: none
// returns: nothing
CREATE CONSTRAINT tombstone_key IF NOT EXISTS
FOR (t:Tombstone) REQUIRE (t.tenant, t.id) IS UNIQUE
