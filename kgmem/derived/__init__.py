"""Derived state, built after the write and rebuildable from the episodes: inferred causal links,
consolidation (merges, summaries, co-occurrence), forgetting, retention, rebuild. May use the query path."""
