// name: schema/08_memory_slot
// Range index on the slot key (64-bit hash of tenant, subject, predicate[, object]): version chains.
// params: none
// returns: nothing
CREATE INDEX memory_slot IF NOT EXISTS
FOR (m:Memory) ON (m.slot, m.at)
