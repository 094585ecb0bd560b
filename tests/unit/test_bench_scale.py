"""The ``scale`` suite's synthetic vectors: their neighbours are graded like real sentence embeddings'."""

from __future__ import annotations

import numpy as np

from kgmem_bench.scale import DIM, REAL_PROFILE, Space, neighbour_profile


def test_space_matches_the_real_neighbour_profile():
    profiles = []
    for seed in range(3):
        space = Space(np.random.default_rng(seed))
        topics = space.tenant()
        memories, queries = space.sample(topics, 2760), space.sample(topics, 200)
        assert memories.shape == (2760, DIM) and memories.dtype == np.float32
        assert np.allclose(np.linalg.norm(memories, axis=1), 1.0, atol=1e-5)
        profiles.append(neighbour_profile(memories, queries))
    gap = np.abs(np.mean(profiles, axis=0) - np.asarray(REAL_PROFILE))
    assert gap.mean() < 0.02 and gap.max() < 0.04


def test_isotropic_vectors_do_not_match_it():
    """The check above can fail: random unit vectors have one near copy, then near-ties at ~0.2."""
    rng = np.random.default_rng(0)
    memories = rng.normal(size=(2760, DIM)).astype(np.float32)
    memories /= np.linalg.norm(memories, axis=1, keepdims=True)
    queries = memories[:200] + rng.normal(size=(200, DIM)).astype(np.float32) * 0.03
    gap = np.abs(neighbour_profile(memories, queries) - np.asarray(REAL_PROFILE))
    assert gap.mean() > 0.2


def test_tenants_share_the_space_but_not_their_topics():
    space = Space(np.random.default_rng(1))
    a, b = space.tenant(), space.tenant()
    mem_a, q_a, mem_b = space.sample(a, 2000), space.sample(a, 100), space.sample(b, 2000)
    own = neighbour_profile(mem_a, q_a)[0]
    other = neighbour_profile(mem_b, q_a)[0]
    assert own > other > 0.0  # another tenant's memories are in the same space, just less close


def test_compare_aligns_versions_on_database_size():
    from kgmem_bench.scale_compare import specs

    fig = {"p50_ms": 5.0, "recall_at_10": 1.0}
    runs = [
        ("2026.08.1", [{"total": 1000, "small": fig, "big": None}, {"total": 1_000_000, "small": fig, "big": fig}]),
        ("5.26.30", [{"total": 1000, "small": {**fig, "p50_ms": 9.0}, "big": None}]),
    ]
    p50, recall = specs(runs)
    assert p50["x"] == [1000, 1_000_000]
    lines = {s["label"]: s["y"] for s in p50["series"]}
    assert lines == {
        "2026.08.1 small tenant": [5.0, 5.0],
        "2026.08.1 big tenant": [None, 5.0],
        "5.26.30 small tenant": [9.0, None],
    }
    assert [s["label"] for s in recall["series"]] == list(lines)
