// name: schema/v2026/19_memory_wide_embedding
// Vector index over Memory.wide_embedding, the derived vector of a memory read with the one before and the one
// Neo4j 2026.x: the index also carries m.tenant (WITH [...]), so SEARCH ... WHERE m.tenant = $tenant filters
// inside the index (recall/v2026/*); an index of the same name without it is dropped and created again.
// after it in its stream (kgmem/derived/context.py): 384 dimensions, cosine.
// params: none
// returns: nothing
CYPHER 25
// [[[cog from kgmem.store.rules import cog_vector_index; cog_vector_index('memory_wide_embedding', 'v2026') ]]]
CREATE VECTOR INDEX memory_wide_embedding IF NOT EXISTS
FOR (m:Memory) ON m.wide_embedding
WITH [m.tenant]
OPTIONS {indexConfig: {
  `vector.dimensions`: 384,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
// [[[end]]]
