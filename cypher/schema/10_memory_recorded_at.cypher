// name: schema/10_memory_recorded_at
// Range index on transaction time (recorded_at): known-at queries and changes since T.
// params: none
// returns: nothing
CREATE INDEX memory_recorded_at IF NOT EXISTS
FOR (m:Memory) ON (m.tenant, m.recorded_at)
