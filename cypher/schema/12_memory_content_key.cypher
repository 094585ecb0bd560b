// name: schema/12_memory_content_key
// Range index on the content key (idempotent ingest, tombstones).
// params: none
// returns: nothing
CREATE INDEX memory_content_key IF NOT EXISTS
FOR (m:Memory) ON (m.tenant, m.content_key)
