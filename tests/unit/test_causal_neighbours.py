"""The causes pass's in-memory neighbour search (a first load, a rebuild): each memory's neighbours are exactly
those of sorting every other memory of its user by cosine (ties by id), the most alike PAIR_CAP at least
PAIR_FLOOR alike, however many memories are alike."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from kgmem.derived import causal
from kgmem.derived.cause_cues import Side

AT = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)


def _sides(n: int, seed: int, users: tuple[str | None, ...] = (None, "ann")) -> list[Side]:
    """``n`` memories whose vectors' components are multiples of 1/4 (every cosine exact in float32, whatever the
    order of the sums: many exact ties, broken by id) and mostly positive (many pairs past the floor)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        v = rng.choice(np.array([-0.25, 0.0, 0.25, 0.5], dtype=np.float32), size=8, p=[0.1, 0.3, 0.4, 0.2])
        out.append(Side(f"m{(i * 7919) % n:04d}", f"text {i}", AT, v, users[i % len(users)]))
    return out


def _by_sorting(sides: list[Side], query_of: dict[str, np.ndarray]) -> dict[str, list[str]]:
    """Each memory's neighbours by sorting all the others of its user: the definition."""
    out = {}
    for i, q in query_of.items():
        me = next(s for s in sides if s.id == i)
        scored = sorted(
            ((float(s.vector @ q), s.id) for s in sides if s.id != i and (s.user or "") == (me.user or "")),
            key=lambda x: (-x[0], x[1]),
        )
        out[i] = [j for sc, j in scored[: causal.PAIR_CAP] if sc >= causal.PAIR_FLOOR]
    return out


@pytest.mark.parametrize("n,seed", [(5, 0), (90, 1), (400, 2)])
def test_the_neighbours_are_those_of_sorting_every_memory(n: int, seed: int) -> None:
    sides = _sides(n, seed)
    got = causal._near_in_memory(causal._user_vectors(sides))
    want = _by_sorting(sides, {s.id: s.vector for s in sides})
    assert got == {i: ns for i, ns in want.items() if i in got}
    assert set(want) - set(got) <= {s.id for s in sides if sum((t.user or "") == (s.user or "") for t in sides) < 2}
    if n >= 90:  # the case the partition is for: more alike memories than the cap
        assert (
            max(sum(1 for t in sides if float(t.vector @ s.vector) >= causal.PAIR_FLOOR) for s in sides)
            > causal.PAIR_CAP
        )
        assert any(len(ns) == causal.PAIR_CAP for ns in got.values())


@pytest.mark.parametrize("n,seed", [(7, 3), (300, 4)])
def test_the_memories_near_a_cause_clause_are_those_of_sorting_every_memory(n: int, seed: int) -> None:
    sides = _sides(n, seed)
    rng = np.random.default_rng(seed)
    clauses = {}
    for s in sides[::3]:
        clauses[s.id] = (s.vector + rng.choice(np.array([0.0, 0.25], dtype=np.float32), size=8)).astype(np.float32)
    assert causal._near_clause_in_memory(causal._user_vectors(sides), clauses) == _by_sorting(sides, clauses)


def test_ties_at_the_cap_go_by_id() -> None:
    v = np.ones(4, dtype=np.float32) / 2.0
    sides = [Side(f"m{i:02d}", "t", AT, v) for i in range(causal.PAIR_CAP + 10)][::-1]
    got = causal._near_in_memory(causal._user_vectors(sides))
    assert got["m00"] == [f"m{i:02d}" for i in range(1, causal.PAIR_CAP + 1)]
    assert got["m05"] == [f"m{i:02d}" for i in range(causal.PAIR_CAP + 1) if i != 5]
