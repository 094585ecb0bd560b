// name: schema/05_memory_text
// Lucene fulltext index over Memory.text (English analyzer: stemming, stop words), read-your-writes.
// It also holds the memory's tenant, which recall's queries require (kgmem.query.lucene.tenant_scope).
// params: none
// returns: nothing
// [[[cog from kgmem.store.rules import cog_fulltext_index; cog_fulltext_index('memory_text') ]]]
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.text, m.tenant]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}
// [[[end]]]
