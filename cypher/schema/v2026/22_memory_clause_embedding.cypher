// name: schema/v2026/22_memory_clause_embedding
// Vector index over Memory.clause_embedding, the derived vector of the cause clause a memory states
// (kgmem/derived/causal.py). Neo4j 2026.x: the index also carries m.tenant (WITH [...]), so SEARCH ... WHERE
// m.tenant = $tenant filters inside the index; an index of the same name without it is dropped and created again.
// params: none
// returns: nothing
CYPHER 25
// [[[cog from kgmem.store.rules import cog_vector_index; cog_vector_index('memory_clause_embedding', 'v2026') ]]]
CREATE VECTOR INDEX memory_clause_embedding IF NOT EXISTS
FOR (m:Memory) ON m.clause_embedding
WITH [m.tenant]
OPTIONS {indexConfig: {
  `vector.dimensions`: 384,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
// [[[end]]]
