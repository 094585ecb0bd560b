"""What the connected Neo4j can do: its version, read once per connection (``Store.server_info``).

kgmem runs on two server generations with one code base. Neo4j 5.26 LTS filters vector hits after the index
has chosen them (``db.index.vector.queryNodes``, then the eligibility rule). Neo4j 2026.02+ (Community too;
a preview in 2026.01) filters inside the index: a vector index that also holds the memory's tenant answers an
in-index filtered search (the SEARCH subclause of ``cypher/recall/v2026/candidates.cypher``) with the tenant's
nearest memories only. The statements that differ have a variant per generation in ``cypher/<group>/v2026/``
(see :mod:`kgmem.store.cypher`); the store runs the one of the generation it detected here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

FILTERED_VECTOR_SEARCH = "filtered_vector_search"
# the SEARCH subclause with WHERE on the index's WITH properties: GA in 2026.02 (2026.01 had it as a preview)
FILTERED_VECTOR_SEARCH_FROM = (2026, 2)


def version_key(version: str) -> tuple[int, ...]:
    """'2026.08.1' -> (2026, 8, 1); '5.26.30' -> (5, 26, 30); '5.27-aura' -> (5, 27); '' -> (0,)."""
    nums = re.findall(r"\d+", version.split("-")[0])[:3]
    return tuple(int(n) for n in nums) or (0,)


@dataclass(frozen=True)
class ServerInfo:
    version: str  # the kernel's version as the server reports it (dbms.components)
    edition: str

    @property
    def key(self) -> tuple[int, ...]:
        return version_key(self.version)

    @property
    def capabilities(self) -> frozenset[str]:
        caps = set()
        if self.key >= FILTERED_VECTOR_SEARCH_FROM:
            caps.add(FILTERED_VECTOR_SEARCH)
        return frozenset(caps)

    @property
    def filtered_vector_search(self) -> bool:
        return FILTERED_VECTOR_SEARCH in self.capabilities

    @property
    def generation(self) -> str | None:
        """The statement variants this server runs (``v2026``), or None for the base statements (5.x)."""
        return "v2026" if self.filtered_vector_search else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "edition": self.edition,
            "capabilities": sorted(self.capabilities),
            "generation": self.generation,
        }

    @classmethod
    def from_components(cls, rows: list[dict[str, Any]]) -> ServerInfo:
        """From the rows of ``admin/server_components`` (the 'Neo4j Kernel' component)."""
        kernel = next((r for r in rows if r.get("name") == "Neo4j Kernel"), rows[0] if rows else {})
        return cls(str(kernel.get("version") or ""), str(kernel.get("edition") or ""))
