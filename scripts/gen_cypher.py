"""Expand the cog blocks of cypher/ from kgmem/store/rules.py and cypher/_templates (``--check``: fail when stale)."""

import sys

from kgmem.store.rules import regenerate

if __name__ == "__main__":
    sys.exit(regenerate(check="--check" in sys.argv[1:]))
