// name: schema/13_memory_subject
// Range index on (tenant, subject, predicate) for slot browsing and history by name.
// params: none
// returns: nothing
CREATE INDEX memory_subject IF NOT EXISTS
FOR (m:Memory) ON (m.tenant, m.subject, m.predicate)
