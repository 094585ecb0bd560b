// name: schema/04_memory_embedding
// Native HNSW vector index over Memory.embedding: all-MiniLM-L6-v2, 384 dimensions, cosine, no quantization.
// params: none
// returns: nothing
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON m.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: 384,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
