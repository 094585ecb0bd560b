"""Expand the cog blocks of cypher/ from kgmem/query/eligibility.py (``--check``: fail when stale)."""

import sys

from kgmem.query.eligibility import regenerate

if __name__ == "__main__":
    sys.exit(regenerate(check="--check" in sys.argv[1:]))
