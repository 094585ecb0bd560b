// name: schema/19_memory_wide_embedding
// Vector index over Memory.wide_embedding, the derived vector of a memory read with the one before and the one
// after it in its stream (kgmem/derived/context.py): 384 dimensions, cosine.
// params: none
// returns: nothing
CREATE VECTOR INDEX memory_wide_embedding IF NOT EXISTS
FOR (m:Memory) ON m.wide_embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: 384,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
