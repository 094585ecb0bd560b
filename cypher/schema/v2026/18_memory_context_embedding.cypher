// name: schema/v2026/18_memory_context_embedding
// Vector index over Memory.context_embedding, the derived vector of a memory read with the one before it in its
// Neo4j 2026.x: the index also carries m.tenant (WITH [...]), so SEARCH ... WHERE m.tenant = $tenant filters
// inside the index (recall/v2026/*); an index of the same name without it is dropped and created again.
// stream (kgmem/derived/context.py): the same model space, 384 dimensions, cosine.
// params: none
// returns: nothing
CYPHER 25
// [[[cog from kgmem.store.rules import cog_vector_index; cog_vector_index('memory_context_embedding', 'v2026') ]]]
CREATE VECTOR INDEX memory_context_embedding IF NOT EXISTS
FOR (m:Memory) ON m.context_embedding
WITH [m.tenant]
OPTIONS {indexConfig: {
  `vector.dimensions`: 384,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
// [[[end]]]
