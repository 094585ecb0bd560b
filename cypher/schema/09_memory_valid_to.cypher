// name: schema/09_memory_valid_to
// Range index on valid_to (null while current): current-only filters and changes-since.
// params: none
// returns: nothing
CREATE INDEX memory_valid_to IF NOT EXISTS
FOR (m:Memory) ON (m.tenant, m.valid_to)
