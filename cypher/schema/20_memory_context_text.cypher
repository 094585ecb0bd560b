// name: schema/20_memory_context_text
// Lucene fulltext over the derived texts of a memory in its stream: context_text (the memory after the one before
// it) and window_text (three before, the memory, three after). Two indexes, each searched as its own channel.
// It also holds the memory's tenant, which recall's queries require (kgmem.query.lucene.tenant_scope).
// params: none
// returns: nothing
// [[[cog from kgmem.store.rules import cog_fulltext_index; cog_fulltext_index('memory_context_text') ]]]
CREATE FULLTEXT INDEX memory_context_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.context_text, m.tenant]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}
// [[[end]]]
