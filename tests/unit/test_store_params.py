"""kgmem.store.session.to_params: Python values to query parameters (pure: no database)."""

from __future__ import annotations

import datetime as dt

import numpy as np

from kgmem.store.session import to_params


def test_lists_keep_their_values_and_print_as_their_length():
    # the driver formats every RUN message's parameters for its debug log before it checks the level: a batch
    # of 2,048 vectors printed in full cost 0.7 s of Python per statement
    vector = np.linspace(-1, 1, 384, dtype=np.float32)
    rows = [{"id": f"m{i}", "embedding": vector.tolist(), "tags": ("a", "b")} for i in range(3)]
    out = to_params({"rows": rows, "vector": vector, "ids": ("x", "y")})
    assert out["rows"] == [{"id": f"m{i}", "embedding": vector.tolist(), "tags": ["a", "b"]} for i in range(3)]
    assert out["vector"] == vector.tolist() and out["ids"] == ["x", "y"]
    assert all(isinstance(v, list) for v in (out["rows"], out["vector"], out["ids"], out["rows"][0]["embedding"]))
    assert repr(out["vector"]) == "<384 values>" and repr(out["rows"]) == "<3 values>"
    assert len(repr(out)) < 100


def test_datetimes_go_as_utc_offsets_inside_lists_and_maps():
    naive = dt.datetime(2026, 1, 2, 3, 4, 5)
    out = to_params({"rows": [{"at": naive}], "when": naive})
    assert out["rows"][0]["at"].tzinfo == dt.timezone.utc and out["when"] == naive.replace(tzinfo=dt.timezone.utc)
