"""why while another client forgets: a cause the first read saw linked may be gone by the second read (the
reliability suite's "forget under load" row caught a KeyError in walks.follow). The walk then skips it and reads
what is left, as if the memory had never been there."""

from __future__ import annotations

import numpy as np

from kgmem.query import walks
from kgmem.query.filters import Filters
from kgmem.results import Hit


class _Embedder:
    def encode(self, texts):
        return [np.eye(384, dtype=np.float32)[len(t) % 384] for t in texts]


def _side(i: str, text: str, linked: list[dict]) -> dict:
    v = np.zeros(384, dtype=np.float32)
    v[0] = 1.0
    return {"id": i, "text": text, "at_ms": 0, "user": None, "embedding": v.tolist(), "linked": linked}


def test_a_linked_cause_forgotten_between_two_reads_is_skipped(monkeypatch):
    reads: list[list[str]] = []

    def read_sides(store, tenant, ids):  # the cause was forgotten after the hits were read
        reads.append(list(ids))
        return {}

    monkeypatch.setattr(walks, "read_sides", read_sides)
    hit = Hit("e", "The nightly build failed", None, 1.0, True, True, {}, similarity=0.9)
    sides = {"e": _side("e", hit.text, [{"id": "gone", "confidence": 0.99, "at_ms": 0}])}
    out = walks.read_cause(None, _Embedder(), "why did the build fail?", [hit], sides, Filters("t"), None, 3, hit)
    assert reads == [["gone"]]  # it was asked for again, and was not there
    assert all(r["id"] != "gone" for r in out.roots) and "gone" not in str(out.paths)


def test_a_chain_whose_next_memory_is_forgotten_ends_there(monkeypatch):
    from kgmem.derived import causal

    monkeypatch.setattr(walks, "read_sides", lambda store, tenant, ids: {})
    found = causal.Explanation("e", "c", 0.9)
    sides = {"e": _side("e", "The nightly build failed", []), "c": _side("c", "the disk filled up", [])}
    del sides["c"]  # forgotten after explain read it
    out, _ = walks.follow(None, _Embedder(), Filters("t"), causal.shipped(), found, sides, None)
    assert out.chain == ()
