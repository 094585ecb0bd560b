// name: schema/21_memory_window_text
// Lucene fulltext over Memory.window_text: three memories before, the memory and three after, in its stream
// (derived; kgmem/derived/context.py).
// params: none
// returns: nothing
CREATE FULLTEXT INDEX memory_window_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.window_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}
