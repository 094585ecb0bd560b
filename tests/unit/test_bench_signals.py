"""Pure parts of the ``signals`` suite: spreading activation and the fusion of one more signal (no database)."""

from __future__ import annotations

import pytest

from kgmem_bench.signals import SPREAD_THRESHOLD, fuse, spread

GRAPH = {  # CO_OCCURS neighbours with weights
    "a": [{"key": "b", "weight": 4.0}, {"key": "c", "weight": 1.0}],
    "b": [{"key": "a", "weight": 4.0}, {"key": "d", "weight": 2.0}],
    "c": [{"key": "a", "weight": 1.0}],
    "d": [{"key": "b", "weight": 2.0}, {"key": "e", "weight": 2.0}],
    "e": [{"key": "d", "weight": 2.0}, {"key": "f", "weight": 2.0}],
    "f": [{"key": "e", "weight": 2.0}],
}


def neighbours(keys):
    return GRAPH.get(keys[0], [])


def test_activation_decays_with_distance_and_edge_weight():
    act = spread(["a"], neighbours)
    assert act["a"] == 1.0
    assert act["b"] == pytest.approx(0.5)  # strongest edge of a, one hop
    assert act["c"] == pytest.approx(0.125)  # a quarter of a's strongest edge
    assert act["d"] == pytest.approx(0.125)  # two hops: 0.5 × (2/4) × 0.5
    assert act["e"] == pytest.approx(0.0625)  # three hops
    assert "f" not in act  # four hops: beyond the depth (and below the threshold)
    assert min(act.values()) >= SPREAD_THRESHOLD


def test_no_seed_no_activation():
    assert spread([], neighbours) == {}


def test_fuse_keeps_the_candidates_and_only_reorders_them():
    base = ["m1", "m2", "m3", "m4"]
    assert fuse(base, [], 1.0) == base  # no signal: recall's order
    out = fuse(base, ["m4", "m3"], 2.0)
    assert sorted(out) == sorted(base)
    assert out[0] == "m4"  # a strong signal lifts its first choice
    assert fuse(base, ["m9", "m4"], 0.0) == base  # weight 0, or ids outside recall's list: no change
