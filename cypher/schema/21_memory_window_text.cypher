// name: schema/21_memory_window_text
// Lucene fulltext over Memory.window_text: three memories before, the memory and three after, in its stream
// (derived; kgmem/derived/context.py).
// It also holds the memory's tenant, which recall's queries require (kgmem.query.lucene.tenant_scope).
// params: none
// returns: nothing
// [[[cog from kgmem.store.rules import cog_fulltext_index; cog_fulltext_index('memory_window_text') ]]]
CREATE FULLTEXT INDEX memory_window_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.window_text, m.tenant]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}
// [[[end]]]
