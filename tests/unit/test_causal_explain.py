"""How ``why`` reads a cause among its hits (:func:`kgmem.derived.causal.explain`), with a stand-in pair model:
which pair wins is the rule under test, not the fitted weights."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np

from kgmem.derived.causal import Candidate, explain
from kgmem.derived.cause_cues import Side

T0 = dt.datetime(2025, 3, 11, 9, tzinfo=dt.timezone.utc)


class PairModel:
    """A pair model that gives a memory's pair with itself ``own`` and every other pair ``other``."""

    threshold = 0.75
    effects = 5

    def __init__(self, own: float, other: float) -> None:
        self.own, self.other = own, other

    def probabilities(self, rows: Sequence[Mapping[str, float]]) -> list[float]:
        return [self.own if r["self"] else self.other for r in rows]


def _side(i: int, text: str, hours: float) -> Side:
    v = np.zeros(8, dtype=np.float32)
    v[i] = 1.0
    return Side(f"m{i}", text, T0 + dt.timedelta(hours=hours), v)


def _unit(_text: str) -> np.ndarray:
    v = np.ones(8, dtype=np.float32)
    return v / np.linalg.norm(v)


HITS = [
    Candidate(_side(0, "Flight to Reykjavik delayed 3 hours thanks to a bird strike on the inbound plane.", 0), 0.8),
    Candidate(_side(1, "Runway works at Keflavik all week, delays expected.", -30), 0.6),
]


def test_a_memory_that_states_its_own_cause_answers_itself_though_another_pair_scores_higher():
    found = explain(HITS, PairModel(own=0.8, other=0.95), _unit)
    assert found is not None
    assert (found.effect, found.cause) == ("m0", "m0")
    assert found.confidence == 0.8 and found.chain == ()


def test_another_memory_is_the_cause_when_the_effect_does_not_state_its_own():
    found = explain(HITS, PairModel(own=0.5, other=0.95), _unit)
    assert found is not None
    assert (found.effect, found.cause) == ("m0", "m1")


def test_nothing_is_read_when_no_pair_reaches_the_threshold():
    assert explain(HITS, PairModel(own=0.5, other=0.6), _unit) is None
