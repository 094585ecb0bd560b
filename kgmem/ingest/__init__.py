"""The write path: record → normalise → embed → write. Never imports :mod:`kgmem.query`."""
