"""The read path: filters → channels → fusion → walks → typed answer. Never imports :mod:`kgmem.ingest`."""
