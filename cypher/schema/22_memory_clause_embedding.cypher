// name: schema/22_memory_clause_embedding
// Vector index over Memory.clause_embedding, the derived vector of the cause clause a memory states ("… because
// the disk filled up": kgmem/derived/causal.py): a memory that arrives later finds the earlier ones whose clause
// names it. 384 dimensions, cosine.
// params: none
// returns: nothing
CREATE VECTOR INDEX memory_clause_embedding IF NOT EXISTS
FOR (m:Memory) ON m.clause_embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: 384,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
