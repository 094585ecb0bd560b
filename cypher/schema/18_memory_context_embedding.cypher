// name: schema/18_memory_context_embedding
// Vector index over Memory.context_embedding, the derived vector of a memory read with the one before it in its
// stream (kgmem/derived/context.py): the same model space, 384 dimensions, cosine.
// params: none
// returns: nothing
CREATE VECTOR INDEX memory_context_embedding IF NOT EXISTS
FOR (m:Memory) ON m.context_embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: 384,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
