// name: admin/drop_vector_index
// Drop the vector index over memory embeddings so `kgmem init --rebuild-indexes` builds it again from the
// stored vectors (HNSW graphs slow down after many deletions; a rebuild compacts them).
// params: none
// returns: nothing
DROP INDEX memory_embedding IF EXISTS
