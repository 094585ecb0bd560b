// name: admin/ping
// One round trip to the server and back: the floor for any single query.
// params: none
// returns: ok
RETURN 1 AS ok
