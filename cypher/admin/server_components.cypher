// name: admin/server_components
// Neo4j name, version and edition of the connected server.
// params: none
// returns: name, version, edition
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
