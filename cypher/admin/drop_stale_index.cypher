// name: admin/drop_stale_index
// Drop one of kgmem's own indexes by name when it was created under an older definition (the schema step
// creates it again right after). The name comes from kgmem's list of index names, never from user input.
// params: $index_name (string)
// returns: nothing
:param index_name => 'no-such-kgmem-index';
DROP INDEX $index_name IF EXISTS
