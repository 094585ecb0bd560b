// name: admin/drop_text_index
// Drop the fulltext index over memory text so `kgmem init --rebuild-indexes` builds it again.
// params: none
// returns: nothing
DROP INDEX memory_text IF EXISTS
