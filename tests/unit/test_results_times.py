"""Times in hit maps: [epoch seconds, nanoseconds] → UTC datetimes, and what a node deleted mid-query reads as."""

from __future__ import annotations

import datetime as dt

from kgmem.query.rows import HitMap
from kgmem.results import from_epoch


def test_epoch_pairs_become_utc_datetimes():
    assert from_epoch([0, 0]) == dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    assert from_epoch([1_700_000_000, 123_456_789]) == dt.datetime(
        2023, 11, 14, 22, 13, 20, 123456, tzinfo=dt.timezone.utc
    )


def test_a_missing_time_is_none():
    # a memory forgotten by a transaction that committed while recall read it comes back with every property
    # null: [null, null] for its time (the reliability suite's forget-under-load race on Neo4j 2026)
    assert from_epoch(None) is None
    assert from_epoch([None, None]) is None


def test_a_hit_map_of_a_deleted_node_does_not_raise():
    rec = {k: None for k in ("id", "text", "kind", "origin", "subject", "predicate", "object", "polarity")}
    rec.update(at_ts=[None, None], valid_to_ts=None, stream=None, user=None, causes=0, mentions=[], similarity=None)
    rec["context_similarity"] = None
    read = HitMap.of(rec)
    assert read.at is None and read.text is None  # recall skips it (a memory gone meanwhile)
