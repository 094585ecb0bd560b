"""Suite ``updates``: knowledge updates stated in plain text — does recall rank what holds now (or held then)
above the statements it replaced?

Three datasets in the same format, each run and labelled on its own:

* ``updates-dev``: the development set (80 cases, 352 memories, 143 questions), read at run time from
  ``$KGMEM_UPDATES`` (a folder holding ``updates-dev.json``, or the file), by default
  ``../shared/datasets/updates-dev`` beside the checkout.
* ``updates-dev-2``: the second development set, by another hand (120 cases, 508 memories, 221 questions), from
  ``$KGMEM_UPDATES_2`` (a folder holding ``updates-dev-2.json``, or the file), by default
  ``../shared/datasets/updates-dev-2``.
* ``fixtures``: ``fixtures/updates/cases.json``, 16 cases written for the project (test data, not evidence).

The two development sets are not shipped with kgmem; a missing one reports a "skipped" table and the suite
still runs the others.

Each case is ingested as plain text (``{"id", "text", "at"}`` only, ``MemoryGraph.ingest`` with its defaults)
into a tenant of its own (``bench-updates-<uuid8>``, deleted when the case ends, also on an interrupt). Each
question is asked with ``recall(q, k=10)``, or ``recall(q, k=10, at=at)`` for an as-of question. Over the same
memories in the same run: flat vector (all-MiniLM-L6-v2 cosine), BM25 (rank-bm25), RRF(vector, BM25) and
newest-first among the top 10 vector hits; for as-of questions the baselines only see memories with
``at`` ≤ the question's ``at`` (now-questions: nothing filtered).

The inferred-supersession pass of each case runs with the supersession model refitted without that case's fold
(:func:`held_out_models`) where the model's training rows hold the set (updates-dev, fixtures), else with the
shipped model, which never saw that set (updates-dev-2).

Scoring (the dataset's README): **first** = ``current`` ranked first and above every ``stale`` id; **beats
stale** = ``current`` ranked above every ``stale`` id. A stale id absent from the hits counts as below; an absent
``current`` fails both. ``no_change`` questions are reported apart ("kept": ``current`` still first).

Also reported: ingest wall time per case and in total, kgmem recall p50/p95, and the edge counts of every
``IngestReport`` (summed per dataset, whatever keys it has, so a new kind of derived edge shows up by itself).
The JSON figures hold every question's outcome per system, ids only (``per_question``: first, beats stale,
the top 3), so two runs can be compared question by question.
Per-question failures go to ``<out>/updates_failures.jsonl``; memory and question texts of the development set
are written there only when the output directory is outside the repository (ids only otherwise).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from kgmem.config import DEFAULT_RRF_K
from kgmem.derived import supersession
from kgmem.query.fusion import rrf

from .devsets import DevSet, load_cases
from .runner import BenchContext, suite

ROOT = Path(__file__).resolve().parents[2]
DATA_FILE = "updates-dev.json"
FIXTURE_FILE = ROOT / "fixtures" / "updates" / "cases.json"
FAILURES_FILE = "updates_failures.jsonl"

DEV, DEV2, FIXTURES = "updates-dev", "updates-dev-2", "fixtures"
# the development sets, by name
DEV_SETS: Mapping[str, DevSet] = MappingProxyType(
    {
        DEV: DevSet(DEV, "KGMEM_UPDATES", DEV, DATA_FILE, f"the updates development set {DEV}"),
        DEV2: DevSet(DEV2, "KGMEM_UPDATES_2", DEV2, "updates-dev-2.json", f"the updates development set {DEV2}"),
    }
)
KINDS = ("reversal", "value_change", "role_change", "cross_subject", "quantity", "correction", "no_change")
NO_CHANGE = "no_change"
NOW, AS_OF = "now", "as-of"
MODES = (NOW, AS_OF)
K = 10
QUICK_CASES = 16
RRF_K = DEFAULT_RRF_K  # the project's constant (kgmem.config), not the usual 60: the same fusion kgmem uses

KGMEM = "kgmem"
VECTOR = "flat vector"
BM25 = "BM25"
FUSED = "RRF(vector, BM25)"
NEWEST = "newest-first (top-10 vector)"
SYSTEMS = (KGMEM, VECTOR, BM25, FUSED, NEWEST)


# --------------------------------------------------------------------------- locating and loading the data


def updates_path(dataset: str = DEV) -> Path:
    """Where a development set is looked for: its variable (``$KGMEM_UPDATES`` for updates-dev,
    ``$KGMEM_UPDATES_2`` for updates-dev-2; a folder, or the JSON file itself), else its folder in
    ``../shared/datasets`` beside the checkout."""
    return DEV_SETS[dataset].path()


def _data_file(path: str | os.PathLike[str], dataset: str = DEV) -> Path:
    return DEV_SETS[dataset].data_file(path)


def updates_missing(path: str | os.PathLike[str] | None = None, dataset: str = DEV) -> dict | None:
    """None when the set's file is there; else a one-row table saying that part was skipped and how to fix it."""
    return DEV_SETS[dataset].missing(path)


def parse_time(value: str) -> dt.datetime:
    """ISO 8601 (``Z`` or an offset) → an aware datetime in UTC (a naive one is taken as UTC)."""
    t = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return (t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)).astimezone(dt.timezone.utc)


def check_cases(cases: Sequence[dict]) -> list[str]:
    """The format's rules, as problem strings (empty when the cases keep them): ids ``<key>-<n>`` unique across
    the file, a known kind, ``current``/``stale`` naming memories of the case, a now-question's ``current``
    newer than its stale ids, an as-of question's ``current`` not after ``at`` and its ``at`` before the next
    statement, ``no_change`` questions without stale ids, and a memory newer than the last update."""
    problems: list[str] = []
    seen_keys: set[str] = set()
    seen_ids: set[str] = set()
    for c in cases:
        key = c["key"]
        if key in seen_keys:
            problems.append(f"{key}: duplicate key")
        seen_keys.add(key)
        if c["kind"] not in KINDS:
            problems.append(f"{key}: unknown kind {c['kind']!r}")
        at = {}
        for m in c["memories"]:
            if set(m) != {"id", "text", "at"}:
                problems.append(f"{key}: memory {m.get('id')} has fields {sorted(m)} (want id, text, at)")
            if not re.fullmatch(re.escape(key) + r"-\d+", str(m.get("id", ""))):
                problems.append(f"{key}: memory id {m.get('id')!r} is not <key>-<n>")
            if m.get("id") in seen_ids:
                problems.append(f"{key}: duplicate memory id {m.get('id')}")
            seen_ids.add(m.get("id"))
            at[m.get("id")] = parse_time(m["at"])
        if not 3 <= len(c["memories"]) <= 7:
            problems.append(f"{key}: {len(c['memories'])} memories (want 3 to 7)")
        named: set[str] = set()
        for i, q in enumerate(c["questions"]):
            where = f"{key} q{i}"
            ids = [q["current"], *q.get("stale", [])]
            unknown = [x for x in ids if x not in at]
            if unknown:
                problems.append(f"{where}: names ids not in the case: {unknown}")
                continue
            named.update(ids)
            cur = at[q["current"]]
            if q["current"] in q.get("stale", []):
                problems.append(f"{where}: current is also stale")
            if c["kind"] == NO_CHANGE and q.get("stale"):
                problems.append(f"{where}: a no_change question has stale ids")
            if "at" not in q:
                older = [s for s in q.get("stale", []) if at[s] >= cur]
                if older:
                    problems.append(f"{where}: stale ids not older than current: {older}")
            else:
                qat = parse_time(q["at"])
                if cur > qat:
                    problems.append(f"{where}: current is after the question's at")
                later = [at[s] for s in q.get("stale", []) if at[s] > cur]
                if later and not qat < min(later):
                    problems.append(f"{where}: at is not before the statement that replaced current")
        fact_times = [at[i] for i in named]
        if fact_times and not any(t > max(fact_times) for i, t in at.items() if i not in named):
            problems.append(f"{key}: no distractor newer than the last update")
    return problems


def quick_selection(
    cases: Sequence[dict], n: int = QUICK_CASES, key: Callable[[dict], str] | None = None
) -> list[dict]:
    """A stable subset for ``--quick``: kinds taken in turn (in order of first appearance), each kind's cases in
    file order, until ``n`` cases; returned in file order. With ``n`` at least the number of kinds every kind is
    covered; the same file always gives the same selection. ``key`` (default: the case's ``kind``) names the
    group a case counts for."""
    by_kind: dict[str, list[int]] = {}
    for i, c in enumerate(cases):
        by_kind.setdefault(key(c) if key else c["kind"], []).append(i)
    chosen: list[int] = []
    depth = 0
    while len(chosen) < min(n, len(cases)):
        for idxs in by_kind.values():
            if depth < len(idxs) and len(chosen) < n:
                chosen.append(idxs[depth])
        depth += 1
    return [cases[i] for i in sorted(chosen)]


# --------------------------------------------------------------------------- scoring (pure)


def score_ranking(ranked: Sequence[str], current: str, stale: Iterable[str], keys: Sequence[Any] | None = None) -> dict:
    """One question against one ranking (best first): ``{"first", "beats_stale", "rank"}``.

    ``beats_stale``: ``current`` is in the ranking and above every ``stale`` id (a stale id absent from the
    ranking counts as below). ``first``: ``current`` is ranked first and beats every stale id. ``rank``: the
    1-based position of ``current`` (None when absent). A repeated id keeps its first position.

    ``keys`` (optional, one per ranked id, higher = better, any comparable values) make ties explicit: with
    them a tie is never a win, so ``current`` must score strictly higher than each stale id it is to beat,
    and, to be first, strictly higher than every other id (an arbitrary tie-break, e.g. by id, earns nothing).
    """
    if keys is not None and len(keys) != len(ranked):
        raise ValueError("keys must have one entry per ranked id")
    pos: dict[str, int] = {}
    key: dict[str, Any] = {}
    for i, r in enumerate(ranked):
        if r not in pos:
            pos[r] = len(pos)
            key[r] = keys[i] if keys is not None else None
    if current not in pos:
        return {"first": False, "beats_stale": False, "rank": None}

    def above(a: str, b: str) -> bool:
        if b not in pos:
            return True
        if pos[a] > pos[b]:
            return False
        return keys is None or key[a] > key[b]

    beats = all(above(current, s) for s in dict.fromkeys(stale) if s != current)
    first = beats and pos[current] == 0 and all(above(current, o) for o in pos if o != current)
    return {"first": first, "beats_stale": beats, "rank": pos[current] + 1}


def eligible(memories: Sequence[dict], at: str | None) -> list[dict]:
    """The time filter of the baselines: every memory for a now-question (``at`` None), else those with
    ``at`` ≤ the question's ``at``."""
    if at is None:
        return list(memories)
    limit = parse_time(at)
    return [m for m in memories if parse_time(m["at"]) <= limit]


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f} % ({n}/{d})" if d else "—"


def aggregate(rows: Sequence[dict]) -> dict:
    """Per-question rows (``system``, ``mode``, ``kind``, ``first``, ``beats_stale``) → counts
    ``{system: {mode: {kind: {"n", "first", "beats_stale"}}}}``; kind ``"all"`` sums every kind but
    no_change, mode ``"all"`` sums both modes."""
    out: dict[str, dict] = {}
    for r in rows:
        for mode in (r["mode"], "all"):
            kinds = (r["kind"], "all") if r["kind"] != NO_CHANGE else (r["kind"],)
            for kind in kinds:
                cell = (
                    out.setdefault(r["system"], {})
                    .setdefault(mode, {})
                    .setdefault(kind, {"n": 0, "first": 0, "beats_stale": 0})
                )
                cell["n"] += 1
                cell["first"] += bool(r["first"])
                cell["beats_stale"] += bool(r["beats_stale"])
    return out


def _cell(agg: dict, system: str, mode: str, kind: str) -> dict:
    return agg.get(system, {}).get(mode, {}).get(kind, {"n": 0, "first": 0, "beats_stale": 0})


def percentile_ms(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000.0 if len(values) else float("nan")


# --------------------------------------------------------------------------- baselines


_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _query_tokens(question: str) -> list[str]:
    from .conversations import query_tokens

    return query_tokens(question)


class CaseBaselines:
    """Flat vector, BM25, RRF of the two and newest-first over one case's memories, each with the as-of filter."""

    def __init__(self, embedder: Any, memories: Sequence[dict]):
        from rank_bm25 import BM25Okapi

        self.embedder = embedder
        self.memories = list(memories)
        self.ids = [m["id"] for m in self.memories]
        self.times = [parse_time(m["at"]).timestamp() for m in self.memories]
        self.matrix = self._unit(embedder.encode([m["text"] for m in self.memories]))
        self.bm25 = BM25Okapi([_tokens(m["text"]) for m in self.memories])

    @staticmethod
    def _unit(m: Any) -> np.ndarray:
        m = np.asarray(m, dtype=np.float32)
        norms = np.linalg.norm(m, axis=-1, keepdims=True)
        return m / np.where(norms == 0, 1.0, norms)

    def rank(self, question: str, at: str | None, qvec: np.ndarray | None = None) -> dict[str, tuple[list, list]]:
        """``{system: (ids best first, keys)}``; keys are the scores the system ranks by (ties visible)."""
        allowed = {m["id"] for m in eligible(self.memories, at)}
        idx = [i for i, x in enumerate(self.ids) if x in allowed]
        if qvec is None:
            qvec = self._unit(self.embedder.encode([question]))[0]
        cos = self.matrix @ qvec
        bm = self.bm25.get_scores(_query_tokens(question))
        v = sorted(idx, key=lambda i: -cos[i])
        b = sorted((i for i in idx if bm[i] > 0), key=lambda i: -bm[i])  # a BM25 index returns matches only
        fused = rrf({"vector": [self.ids[i] for i in v], "bm25": [self.ids[i] for i in b]}, k=RRF_K)
        top = v[:K]
        newest = sorted(top, key=lambda i: -self.times[i])
        return {
            VECTOR: ([self.ids[i] for i in v[:K]], [float(cos[i]) for i in v[:K]]),
            BM25: ([self.ids[i] for i in b[:K]], [float(bm[i]) for i in b[:K]]),
            FUSED: (
                [f.id for f in fused[:K]],
                [(round(f.score, 12), -min(r for r in f.ranks.values() if r is not None)) for f in fused[:K]],
            ),
            NEWEST: ([self.ids[i] for i in newest], [self.times[i] for i in newest]),
        }


# --------------------------------------------------------------------------- the run


def _texts_allowed(out_dir: Path) -> bool:
    """Texts of the development set may go to the output only outside the repository (bench/results is tracked)."""
    try:
        return not Path(out_dir).resolve().is_relative_to(ROOT.resolve())
    except OSError:
        return False


def _run_case(ctx: BenchContext, case: dict, dataset: str, model: Any = None) -> tuple[list[dict], dict, list[str]]:
    """Ingest one case into its own tenant, ask every question of every system; (rows, case info, errors).

    The write and the inferred-supersession pass are timed apart; the pass scores with ``model`` (the model
    refitted without this case's fold, so what is reported is held out) or the shipped one."""
    records = [{"id": m["id"], "text": m["text"], "at": m["at"]} for m in case["memories"]]
    texts = {m["id"]: m["text"] for m in records}
    rows: list[dict] = []
    errors: list[str] = []
    info: dict[str, Any] = {"key": case["key"], "kind": case["kind"], "memories": len(records)}
    with ctx.memory_graph() as mg:
        info["tenant"] = mg.tenant
        t0 = time.perf_counter()
        try:
            report = mg.ingest(records, infer_supersession=False)
            info["write_s"] = time.perf_counter() - t0
            t_pass = time.perf_counter()
            report.edges["inferred_supersedes"] = supersession.run(mg.store, mg.tenant, report.ids, model=model)
            info["inference_s"] = time.perf_counter() - t_pass
        except Exception as exc:
            errors.append(f"{dataset}/{case['key']}: ingest raised {type(exc).__name__}: {exc}")
            return rows, info, errors
        info["ingest_s"] = time.perf_counter() - t0
        rep = report.to_dict()
        info["report"] = {k: v for k, v in rep.items() if k != "errors"}
        info["edges"] = dict(report.edges)
        if report.errors:
            errors.append(
                f"{dataset}/{case['key']}: ingest reported {len(report.errors)} error(s): {report.errors[:2]}"
            )
        base = CaseBaselines(ctx.embedder, records)
        qvecs = base._unit(ctx.embedder.encode([q["q"] for q in case["questions"]]))
        for qi, q in enumerate(case["questions"]):
            at = q.get("at")
            mode = AS_OF if at else NOW
            stale = list(q.get("stale", []))
            common = {
                "dataset": dataset,
                "case": case["key"],
                "index": qi,
                "kind": case["kind"],
                "mode": mode,
                "at": at,
                "current": q["current"],
                "stale": stale,
                "q": q["q"],
                "current_text": texts[q["current"]],
                "stale_texts": [texts[s] for s in stale],
            }
            t1 = time.perf_counter()
            err = None
            try:
                res = mg.recall(q["q"], k=K, at=at) if at else mg.recall(q["q"], k=K)
                hits = list(res.hits)
                abstained, confidence = bool(res.abstained), getattr(res, "confidence", None)
            except Exception as exc:
                hits, abstained, confidence = [], True, None
                err = f"{type(exc).__name__}: {exc}"
                errors.append(f"{dataset}/{case['key']} q{qi}: recall raised {err}")
            latency = time.perf_counter() - t1
            ids = [h.id for h in hits]
            keys = [(h.score, h.similarity if h.similarity is not None else -1.0) for h in hits]
            rows.append(
                {
                    **common,
                    "system": KGMEM,
                    "top": ids,
                    "top_texts": [h.text for h in hits[:3]],
                    **score_ranking(ids, q["current"], stale, keys),
                    "abstained": abstained,
                    "confidence": confidence,
                    "latency_s": latency,
                    **({"error": err} if err else {}),
                }
            )
            for system, (bids, bkeys) in base.rank(q["q"], at, qvecs[qi]).items():
                rows.append(
                    {
                        **common,
                        "system": system,
                        "top": bids,
                        "top_texts": [texts[x] for x in bids[:3]],
                        **score_ranking(bids, q["current"], stale, bkeys),
                    }
                )
    return rows, info, errors


def held_out_models(cases: list[dict], folds: int = 5, dataset: str | None = None) -> tuple[dict[str, Any], str]:
    """Per case, the supersession model refitted (the shipped C, threshold and chain weight) on the training
    rows of every other fold (bench/supersession_training.json; the same folds as scripts/fit_supersession.py),
    so a case is never scored by a model that saw it. Cases the rows do not hold get the shipped model.

    ``dataset`` (the training rows' ``dataset`` column): a set that has no row there was never fitted on, so
    all its cases get the shipped model (a key it shares with another set's case must not pick a refit)."""
    from . import supersession_fit as sf

    shipped = supersession.shipped()
    path = Path(__file__).resolve().parents[1] / "supersession_training.json"
    if shipped is None or not path.exists():
        return {}, "the shipped model (no training rows to refit without each fold)"
    data = json.loads(path.read_text(encoding="utf-8"))
    cols = data["columns"]
    rows = [dict(zip(cols, r)) for r in data["rows"]]
    if dataset is not None and not any(r.get("dataset") == dataset for r in rows):
        return {}, f"the shipped model (its training rows hold no {dataset} case: held out as a whole)"
    for r in rows:
        r["x"] = dict(zip(data["features"], r["x"]))
    named = {sf.case_name(dataset, c["key"]): c["key"] for c in cases}
    evaluated = sorted(set(named) & {r["case"] for r in rows if dataset is None or r.get("dataset") == dataset})
    c_value = float(shipped.held_out.get("C", 0.03))
    out: dict[str, Any] = {}
    for _train, test in sf.split(evaluated, folds):
        model = sf.fit(
            [r for r in rows if r["case"] not in test], c_value, shipped.threshold, chain_weight=shipped.chain_weight
        )
        out.update(dict.fromkeys((named[t] for t in test), model))
    return out, f"refitted without each case's fold ({folds} grouped folds, C={c_value}, threshold {shipped.threshold})"


def _run_dataset(ctx: BenchContext, dataset: str, cases: list[dict]) -> tuple[list[dict], list[dict], list[str], str]:
    rows: list[dict] = []
    infos: list[dict] = []
    errors: list[str] = []
    models, how = held_out_models(cases, dataset=dataset)
    ctx.log(f"{dataset}: supersession model {how}")
    with ctx.timed(dataset):
        for n, case in enumerate(cases, 1):
            r, info, e = _run_case(ctx, case, dataset, models.get(case["key"]))
            rows += r
            infos.append(info)
            errors += e
            if n % 10 == 0 or n == len(cases):
                ctx.log(f"{dataset}: {n}/{len(cases)} cases")
    return rows, infos, errors, how


def _rate_tables(dataset: str, agg: dict, quick: bool) -> list[dict]:
    kinds = [k for k in KINDS if k != NO_CHANGE] + ["all"]
    tables = []
    for metric, label in (("first", "first"), ("beats_stale", "beats stale")):
        trows = []
        for mode, mode_kinds in ((NOW, kinds), (AS_OF, kinds), ("all", ["all"])):
            for kind in mode_kinds:
                n = _cell(agg, KGMEM, mode, kind)["n"]
                if not n:
                    continue
                asked = "now + as-of" if mode == "all" else mode
                trows.append([asked, kind, n, *[_pct(_cell(agg, s, mode, kind)[metric], n) for s in SYSTEMS]])
        tables.append(
            {
                "title": f'{dataset}: "{label}" per kind, now and as-of (no_change apart)'
                + (" — quick" if quick else ""),
                "columns": ["question", "kind", "n", *SYSTEMS],
                "rows": trows,
                "note": (
                    "first = current ranked first and above every stale id; "
                    if metric == "first"
                    else "beats stale = current ranked above every stale id, first or not; "
                )
                + "a stale id absent from the hits counts as below, an absent current fails, a tie in score is "
                "not a win. kgmem: recall(q, k=10[, at=at]) with default options. Baselines over the case's "
                "memories, as-of questions only over memories with at ≤ the question's at. "
                f"RRF(vector, BM25) uses kgmem's DEFAULT_RRF_K = {RRF_K}. newest-first orders the top 10 vector "
                "hits by at, newest first (a case has at most 7 memories, so that is every eligible memory): a "
                "rule that only prefers recency scores like it.",
            }
        )
    kept_rows = []
    for mode in (*MODES, "all"):
        n = _cell(agg, KGMEM, mode, NO_CHANGE)["n"]
        if n:
            kept_rows.append([mode, n, *[_pct(_cell(agg, s, mode, NO_CHANGE)["first"], n) for s in SYSTEMS]])
    tables.append(
        {
            "title": f'{dataset}: no_change controls, share where current stays first ("kept")',
            "columns": ["question", "n", *SYSTEMS],
            "rows": kept_rows or [["—", 0, *["—" for _ in SYSTEMS]]],
            "note": "A later statement mentions the thing without changing it (still …, someone else's, a "
            "hypothetical, a temporary arrangement); it must not displace the fact. Stale is empty, so kept = "
            "current ranked first.",
        }
    )
    return tables


def _headline_rows(dataset: str, agg: dict) -> list[list]:
    """One set's compact rows: now, as-of and all ("first"), then no_change kept, one column per system."""
    out = []
    for label, mode, kind in (
        (NOW, NOW, "all"),
        (AS_OF, AS_OF, "all"),
        ("all", "all", "all"),
        ("kept", "all", NO_CHANGE),
    ):
        n = _cell(agg, KGMEM, mode, kind)["n"]
        if n:
            out.append([dataset, label, n, *[_pct(_cell(agg, s, mode, kind)["first"], n) for s in SYSTEMS]])
    return out


def _cost(dataset: str, infos: list[dict], rows: list[dict]) -> tuple[list, dict]:
    ingest = [i["ingest_s"] for i in infos if "ingest_s" in i]
    passes = [i["inference_s"] for i in infos if "inference_s" in i]
    lat = {m: [r["latency_s"] for r in rows if r["system"] == KGMEM and r["mode"] == m] for m in MODES}
    every = lat[NOW] + lat[AS_OF]
    figures = {
        "cases": len(infos),
        "memories": sum(i["memories"] for i in infos),
        "ingest_total_s": float(sum(ingest)),
        "inference_total_s": float(sum(passes)),
        "inference_share_of_ingest": float(sum(passes) / sum(ingest)) if ingest and sum(ingest) else float("nan"),
        "ingest_per_case_s": {
            "p50": float(np.median(ingest)) if ingest else float("nan"),
            "mean": float(np.mean(ingest)) if ingest else float("nan"),
            "max": float(max(ingest)) if ingest else float("nan"),
        },
        "recall_ms": {
            "p50": percentile_ms(every, 50),
            "p95": percentile_ms(every, 95),
            "p50_now": percentile_ms(lat[NOW], 50),
            "p50_as_of": percentile_ms(lat[AS_OF], 50),
            "n": len(every),
        },
    }
    row = [
        dataset,
        figures["cases"],
        figures["memories"],
        f"{figures['ingest_total_s']:.1f} s (inference pass {figures['inference_total_s']:.1f} s, "
        f"{100 * figures['inference_share_of_ingest']:.0f} %)",
        f"{figures['ingest_per_case_s']['p50'] * 1000:.0f} / {figures['ingest_per_case_s']['mean'] * 1000:.0f} / "
        f"{figures['ingest_per_case_s']['max'] * 1000:.0f} ms",
        f"{figures['recall_ms']['p50']:.0f} / {figures['recall_ms']['p95']:.0f} ms",
        f"{figures['recall_ms']['p50_now']:.0f} / {figures['recall_ms']['p50_as_of']:.0f} ms",
    ]
    return row, figures


def _edge_totals(infos: list[dict]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for i in infos:
        for k, v in (i.get("edges") or {}).items():
            totals[k] = totals.get(k, 0) + int(v)
        for k in ("superseded", "facts", "linked"):
            totals[f"report.{k}"] = totals.get(f"report.{k}", 0) + int((i.get("report") or {}).get(k, 0))
    return totals


def _failure_lines(rows: list[dict], texts_ok: bool) -> list[dict]:
    """One line per question and system where "first" failed (kgmem first), for error analysis."""
    by_q: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        by_q.setdefault((r["dataset"], r["case"], r["index"]), {})[r["system"]] = r
    out = []
    for system in SYSTEMS:
        for systems in by_q.values():
            r = systems.get(system)
            if r is None or r["first"]:
                continue
            with_text = texts_ok or r["dataset"] == FIXTURES
            line = {
                "dataset": r["dataset"],
                "system": system,
                "case": r["case"],
                "index": r["index"],
                "kind": r["kind"],
                "mode": r["mode"],
                "at": r["at"],
                "question": r["q"] if with_text else None,
                "current": r["current"],
                "stale": r["stale"],
                "rank_of_current": r["rank"],
                "beats_stale": r["beats_stale"],
                "top3": [
                    {"id": x, "text": (r["top_texts"][j] if with_text and j < len(r["top_texts"]) else None)}
                    for j, x in enumerate(r["top"][:3])
                ],
                "current_text": r["current_text"] if with_text else None,
                "stale_texts": r["stale_texts"] if with_text else None,
                "others_first": sorted(s for s, o in systems.items() if s != system and o["first"]),
            }
            if system == KGMEM:
                line.update(abstained=r.get("abstained"), confidence=r.get("confidence"), error=r.get("error"))
            out.append(line)
    return out


def _question_figures(rows: list[dict]) -> list[dict]:
    """Per question and system: ids and outcomes only (no texts), for the suite's JSON."""
    keep = ("dataset", "case", "index", "kind", "mode", "at", "current", "stale", "system", "top", "first")
    return [
        {**{k: r[k] for k in keep}, "beats_stale": r["beats_stale"], "rank": r["rank"]}
        | ({"latency_ms": r["latency_s"] * 1000.0, "abstained": r["abstained"]} if r["system"] == KGMEM else {})
        for r in rows
    ]


def per_question(rows: Sequence[dict]) -> dict[str, dict]:
    """The run's outcome per question, ids only, compact enough to compare two runs: ``{"<case>/<index>":
    {"kind", "mode", "current", "first": {system: bool}, "beats_stale": {system: bool}, "top": {system: [the
    first 3 ids]}}}`` (keys in the rows' order; one dataset's rows at a time, case keys being unique in a set)."""
    out: dict[str, dict] = {}
    for r in rows:
        q = out.setdefault(
            f"{r['case']}/{r['index']}",
            {"kind": r["kind"], "mode": r["mode"], "current": r["current"], "first": {}, "beats_stale": {}, "top": {}},
        )
        q["first"][r["system"]] = bool(r["first"])
        q["beats_stale"][r["system"]] = bool(r["beats_stale"])
        q["top"][r["system"]] = list(r["top"][:3])
    return out


def _warm_up(ctx: BenchContext) -> None:
    """Load the embedder and check the schema with one untimed ingest and recall in a throwaway tenant, so the
    first case's ingest time is not the model's load time."""
    ctx.embedder.encode(["warm up"])
    with ctx.memory_graph() as mg:
        mg.ingest([{"id": "warm-up-1", "text": "a warm-up note, not part of any case", "at": "2024-01-01T00:00:00Z"}])
        mg.recall("warm-up note", k=K)
        mg.recall("warm-up note", k=K, at="2024-06-01T00:00:00Z")


@suite("updates", title="Knowledge updates in plain text: current vs stale statements, now and as-of")
def run(ctx: BenchContext) -> dict:
    """Updates stated in plain text: is what holds now (or held then) ranked above what it replaced?"""
    datasets: list[tuple[str, Path, list[dict]]] = []
    tables: list[dict] = []
    notes: list[str] = []
    errors: list[str] = []
    figures: dict[str, Any] = {
        "settings": {"k": K, "rrf_k": RRF_K, "quick": ctx.quick, "quick_cases": QUICK_CASES, "systems": SYSTEMS}
    }
    for dev in DEV_SETS:
        missing = updates_missing(dataset=dev)
        if missing:
            ctx.log(f"{dev} skipped: {missing['rows'][0][0]} at {missing['rows'][0][1]}")
            tables.append(missing)
            figures[dev] = {"skipped": True, "looked_at": missing["rows"][0][1]}
            notes.append(f"{dev}: skipped ({missing['rows'][0][0]}; {missing['rows'][0][2]}).")
        else:
            path = _data_file(updates_path(dev), dev)
            datasets.append((dev, path, load_cases(path)))
    datasets.append((FIXTURES, FIXTURE_FILE, load_cases(FIXTURE_FILE)))
    headline: list[list] = []

    with ctx.timed("warm-up"):
        _warm_up(ctx)
    emb = ctx.embedder
    figures["settings"]["embedder"] = {
        "backend": getattr(emb, "backend", None),
        "fallback_reason": getattr(emb, "fallback_reason", None),
    }
    notes.append(
        f"Embedder backend: {getattr(emb, 'backend', '?')}"
        + (f" (fallback: {emb.fallback_reason})" if getattr(emb, "fallback_reason", None) else "")
        + "; kgmem and the vector baselines share it."
    )
    all_rows: list[dict] = []
    cost_rows: list[list] = []
    edge_rows: dict[str, dict[str, int]] = {}
    for name, path, cases in datasets:
        problems = check_cases(cases)
        if problems:
            notes.append(f"{name}: {len(problems)} format problem(s): " + "; ".join(problems[:10]))
        chosen = quick_selection(cases) if ctx.quick else cases
        ctx.log(f"{name}: {len(chosen)} of {len(cases)} cases ({path})")
        rows, infos, errs, how = _run_dataset(ctx, name, chosen)
        errors += errs
        all_rows += rows
        agg = aggregate(rows)
        tables += _rate_tables(name, agg, ctx.quick and len(chosen) < len(cases))
        headline += _headline_rows(name, agg)
        cost_row, cost = _cost(name, infos, rows)
        cost_rows.append(cost_row)
        edge_rows[name] = _edge_totals(infos)
        figures[name] = {
            "path": str(path),
            "cases_in_file": len(cases),
            "cases_run": [c["key"] for c in chosen],
            "questions": sum(len(c["questions"]) for c in chosen),
            "format_problems": problems,
            "counts": agg,
            "cost": cost,
            "edges": edge_rows[name],
            "per_case": infos,
            "supersession_model": how,
            "questions_detail": _question_figures(rows),
            "per_question": per_question(rows),
        }
        k = agg.get(KGMEM, {})
        notes.append(
            f"{name}: kgmem first — now {_pct(_cell(agg, KGMEM, NOW, 'all')['first'], _cell(agg, KGMEM, NOW, 'all')['n'])}, "
            f"as-of {_pct(_cell(agg, KGMEM, AS_OF, 'all')['first'], _cell(agg, KGMEM, AS_OF, 'all')['n'])}"
            f" (no_change kept {_pct(_cell(agg, KGMEM, 'all', NO_CHANGE)['first'], _cell(agg, KGMEM, 'all', NO_CHANGE)['n'])})"
            + ("; quick: a stable subset covering every kind" if ctx.quick and len(chosen) < len(cases) else "")
            + "."
            if k
            else f"{name}: no questions were scored."
        )

    tables.insert(
        0,
        {
            "title": 'Headline: "first" per set (current ranked first and above every stale id)'
            + (" — quick" if ctx.quick else ""),
            "columns": ["set", "question", "n", *SYSTEMS],
            "rows": headline,
            "note": "Each set on its own; the per-kind tables below have the detail. all = now + as-of questions "
            "(no_change apart: kept = current still first). The supersession model that scored each set: "
            + "; ".join(f"{name}: {figures[name].get('supersession_model', '—')}" for name, _p, _c in datasets)
            + ".",
        },
    )
    tables.append(
        {
            "title": "Cost: ingest and recall",
            "columns": [
                "dataset",
                "cases",
                "memories",
                "ingest total",
                "ingest per case p50 / mean / max",
                "kgmem recall p50 / p95",
                "recall p50 now / as-of",
            ],
            "rows": cost_rows,
            "note": "Wall time (perf_counter) of MemoryGraph.ingest as the API does it (defaults: compile_facts and "
            "infer_causes on) on one case's memories into an empty tenant, and of MemoryGraph.recall; local Neo4j. "
            "An untimed warm-up ingest and recall (a throwaway tenant) come first, so the first "
            "case does not pay the model's load.",
        }
    )
    edge_keys = sorted({k for totals in edge_rows.values() for k in totals})
    tables.append(
        {
            "title": "What ingest wrote (IngestReport.edges and counts, summed over the cases)",
            "columns": ["dataset", *edge_keys],
            "rows": [[name, *[totals.get(k, 0) for k in edge_keys]] for name, totals in edge_rows.items()],
            "note": "Every key IngestReport.edges reports is a column (a new derived edge kind appears by itself); "
            "report.* are the report's superseded / facts / linked counts.",
        }
    )
    texts_ok = _texts_allowed(ctx.out_dir)
    failures = _failure_lines(all_rows, texts_ok)
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    fail_path = ctx.out_dir / FAILURES_FILE
    with fail_path.open("w") as fh:
        for line in failures:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    notes.append(
        f'Failures ("first" missed, one line per question and system, kgmem first): {fail_path} '
        f"({sum(1 for f in failures if f['system'] == KGMEM)} kgmem lines, {len(failures)} in all)"
        + ("" if texts_ok else "; the output is inside the repository, so updates-dev texts are left out (ids only)")
        + "."
    )
    figures["failures_file"] = str(fail_path)
    return {"tables": tables, "figures": figures, "notes": notes, "errors": errors}
