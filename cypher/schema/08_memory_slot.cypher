// name: schema/08_memory_slot
// Range index on the slot key (64-bit hash of tenant, subject, predicate[, object]): a slot's versions.
// params: none
// returns: nothing
CREATE INDEX memory_slot IF NOT EXISTS
FOR (m:Memory) ON (m.slot)
