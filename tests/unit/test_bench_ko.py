"""Pure parts of the benchmark framework and the Knowledge Objects suite (no database, no timing)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kgmem_bench import runner
from kgmem_bench.ko_paper import (
    ATTRIBUTES,
    PAPER_T7,
    FlatVectorRAG,
    LinearAssociativeMemory,
    make_distractors,
    make_facts,
    monthly_cost,
    paper_token_estimate,
    semantic_density,
)

# --------------------------------------------------------------------------- LAM


def test_lam_orthogonal_keys_recall_perfectly_at_small_n():
    rng = np.random.default_rng(0)
    d, n = 64, 10
    keys = np.eye(d)[:n]
    values = rng.normal(size=(n, d))
    lam = LinearAssociativeMemory(d=d)
    lam.write_many(keys, values)
    assert [lam.decode(k, values) for k in keys] == list(range(n))


def test_lam_update_rule_is_decay_plus_outer_product():
    lam = LinearAssociativeMemory(d=2, decay=0.5, lr=0.1)
    k1, v1 = np.array([1.0, 0.0]), np.array([0.0, 2.0])
    k2, v2 = np.array([0.0, 1.0]), np.array([3.0, 0.0])
    lam.write(k1, v1)
    lam.write(k2, v2)
    expected = 0.5 * 0.1 * np.outer(v1, k1) + 0.1 * np.outer(v2, k2)
    assert np.allclose(lam.W, expected)
    assert np.allclose(lam.read(k1), 0.05 * v1)
    assert lam.writes == 2


def test_lam_identical_keys_interfere():
    # two values on the same key: the read blends them, so one of the two facts must be lost
    lam = LinearAssociativeMemory(d=3)
    k = np.array([1.0, 0.0, 0.0])
    values = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    lam.write(k, values[0])
    lam.write(k, values[1])
    assert lam.decode(k, values) == 1  # the most recent write dominates (decay)


def test_lam_decode_of_empty_memory():
    lam = LinearAssociativeMemory(d=4)
    assert lam.decode(np.ones(4), np.eye(4)) == -1


# --------------------------------------------------------------------------- rho


def test_semantic_density_orthogonal_identical_and_single():
    assert semantic_density(np.eye(5)) == pytest.approx(0.0)
    assert semantic_density(np.ones((4, 3)) * 2.5) == pytest.approx(1.0)
    assert semantic_density(np.ones((1, 3))) == 0.0


def test_semantic_density_matches_definition():
    rng = np.random.default_rng(1)
    k = rng.normal(size=(6, 8))
    kn = k / np.linalg.norm(k, axis=1, keepdims=True)
    pairs = [float(kn[i] @ kn[j]) for i in range(6) for j in range(6) if i != j]
    assert semantic_density(k) == pytest.approx(np.mean(pairs))


# --------------------------------------------------------------------------- synthetic data


def test_make_facts_distinct_slots_and_values():
    facts = make_facts(np.random.default_rng(3), 75)
    assert len({(f.entity, f.attribute) for f in facts}) == 75
    assert len({f.value for f in facts}) == 75
    f = facts[0]
    assert f.question == f"What is the {f.attribute} of {f.entity}?"
    assert f.attribute in ATTRIBUTES
    rec = f.record(at="2026-01-01")
    assert rec["subject"] == f.entity and rec["object"] == f.value and rec["kind"] == "fact" and rec["at"]


def test_make_facts_reproducible():
    a = make_facts(np.random.default_rng(7), 20)
    b = make_facts(np.random.default_rng(7), 20)
    assert a == b


def test_make_distractors_avoid_chain_names():
    exclude = {"Zorbia", "Nexar", "Crystite", "500 credits"}
    facts = make_distractors(np.random.default_rng(0), 100, exclude)
    assert len(facts) == 100
    assert len({(s, p) for s, p, _ in facts}) == 100
    assert not ({s for s, _, _ in facts} | {o for _, _, o in facts}) & exclude


def test_flat_rag_batch_index_is_empty_until_reindex():
    def embed(texts):
        return np.array([[1.0, 0.0] if "name" in t else [0.0, 1.0] for t in texts])

    rag = FlatVectorRAG(embed)
    rag.add("My name is Alice")
    assert rag.search("what is my name?") == []
    rag.reindex()
    assert rag.search("what is my name?") == ["My name is Alice"]


# --------------------------------------------------------------------------- cost arithmetic


def test_paper_token_formula_and_cost():
    assert paper_token_estimate(5_000) == 65_120
    assert paper_token_estimate(10) == 250
    # the paper's N = 1,000 row: 13,120 tokens, 100 queries/day → ≈ $120 / month
    assert monthly_cost(paper_token_estimate(1_000), 100) == pytest.approx(120.3, abs=0.1)
    assert set(PAPER_T7) == {1_000, 5_000, 10_000}


# --------------------------------------------------------------------------- formatting and report


def test_format_table_markdown():
    table = {"title": "T", "columns": ["a", "b|c"], "rows": [[1, 0.12345], [None, "x|y"]], "note": "n."}
    md = runner.format_table(table)
    lines = md.splitlines()
    assert lines[0] == "### T"
    assert lines[2] == "| a | b\\|c |"
    assert lines[3] == "|---|---|"
    assert lines[4] == "| 1 | 0.1235 |"
    assert lines[5] == "| — | x\\|y |"
    assert lines[-1] == "n."


def test_format_helpers():
    assert runner.fmt_pct(0.4, 0.1) == "40.0 ± 10.0 %"
    assert runner.fmt_pct(float("nan")) == "—"
    assert runner.fmt_num(1.234, 0.5) == "1.23 ± 0.50"
    assert runner.fmt_money(11_733.4) == "$11,733"
    assert runner.fmt_money(3.78) == "$3.78"
    assert runner.mean_sd([1.0]) == (1.0, 0.0)
    m, s = runner.mean_sd([1.0, 3.0])
    assert m == 2.0 and s == pytest.approx(np.sqrt(2))


def test_registry_and_report(tmp_path):
    runner.discover()
    assert "ko" in runner.available_suites()
    record = {
        "suite": "zz-test",
        "title": "Test",
        "status": "ok",
        "quick": True,
        "trials": 1,
        "duration_s": 1.0,
        "environment": {"date": "2026-01-01", "neo4j": {"version": "5.26"}},
        "notes": ["hello"],
        "tables": [{"title": "Tab", "columns": ["x"], "rows": [[1]], "note": None}],
        "figures": {},
        "plots": [{"file": "p.png", "rendered": False}],
    }
    (tmp_path / "zz-test.json").write_text(json.dumps(record))
    report = runner.render_report(tmp_path).read_text()
    assert "## `zz-test` — Test" in report and "### Tab" in report and "hello" in report
    assert "p.png" not in report  # plots that failed to render are not linked


def test_render_plot_line_and_bar(tmp_path):
    line = {
        "file": "l.png",
        "kind": "line",
        "x": [1, 5, 10],
        "logx": True,
        "series": [{"label": "a", "y": [1, 0.5, None], "yerr": [0, 0.1, 0]}, {"label": "b", "y": [1, 1, 1]}],
        "fill_between": ["a", "b"],
        "hlines": [{"y": 0.1, "label": "chance"}],
    }
    bar = {
        "file": "b.png",
        "kind": "bar",
        "categories": ["u", "v"],
        "logy": True,
        "annotate": True,
        "series": [{"label": "a", "y": [10, 1000]}, {"label": "b", "y": [5, 50]}],
    }
    assert runner.render_plot(line, tmp_path).stat().st_size > 0
    assert runner.render_plot(bar, tmp_path).stat().st_size > 0


def test_suite_decorator_rejects_bad_names():
    with pytest.raises(ValueError):
        runner.suite("bad name!")


def test_json_cleaning():
    cleaned = runner._clean_nan({"a": float("nan"), "b": [1.0, float("inf")], "c": {"d": 2}})
    assert cleaned == {"a": None, "b": [1.0, None], "c": {"d": 2}}


# --------------------------------------------------------------------------- failures are failures


class _OfflineContext(runner.BenchContext):
    """A context that needs neither the model nor the database."""

    @property
    def embedder(self):
        class _Stub:
            def encode(self, texts):
                return np.zeros((len(texts), 4))

        return _Stub()


def test_ko_suite_records_an_experiment_that_raises_and_runs_the_others(monkeypatch):
    from kgmem_bench import ko_paper

    def broken(ctx):
        raise RuntimeError("injected failure")

    def fine(ctx):
        return {"tables": [{"title": "fine", "columns": ["x"], "rows": [[1]]}], "figures": {"fine": 1}}

    monkeypatch.setattr(ko_paper, "EXPERIMENTS", (("broken", broken), ("fine", fine)))
    out = ko_paper.run(_OfflineContext(suite="ko", verbose=False))
    assert len(out["errors"]) == 1 and out["errors"][0].startswith("broken: ")
    assert "RuntimeError: injected failure" in out["errors"][0]
    assert [t["title"] for t in out["tables"]] == ["broken — failed", "fine"]


def test_a_suite_with_recorded_errors_fails_the_run(monkeypatch, tmp_path):
    runner.discover()
    monkeypatch.setattr(runner, "environment", lambda ctx=None: {})
    monkeypatch.setitem(
        runner._REGISTRY,
        "zz-partial",
        runner.Suite("zz-partial", lambda ctx: {"tables": [], "errors": ["part: boom"]}, "Partial"),
    )
    monkeypatch.setitem(
        runner._REGISTRY,
        "zz-clean",
        runner.Suite("zz-clean", lambda ctx: {"tables": [{"title": "t", "columns": ["x"], "rows": [[1]]}]}, "Clean"),
    )
    results = runner.run_suites(["zz-partial", "zz-clean"], out_dir=tmp_path, verbose=False)
    assert results["zz-partial"]["status"] == "error" and results["zz-partial"]["errors"] == ["part: boom"]
    assert "part: boom" in results["zz-partial"]["error"]
    assert results["zz-clean"]["status"] == "ok" and results["zz-clean"]["errors"] == []
    assert json.loads((tmp_path / "zz-partial.json").read_text())["status"] == "error"
    assert runner.main_cli(["zz-clean"], quick=True, out=tmp_path) == 0
    assert runner.main_cli(["zz-partial"], quick=True, out=tmp_path) == 1
