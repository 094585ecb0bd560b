// name: schema/11_memory_stream
// Range index on (tenant, stream, at): NEXT chains and timelines.
// params: none
// returns: nothing
CREATE INDEX memory_stream IF NOT EXISTS
FOR (m:Memory) ON (m.tenant, m.stream, m.at)
