"""Suite ``notes``: plain notes of several users with mixed questions — is recall's (why's, ask's) first answer
the right note, and does it abstain where the detail is not in memory?

Data: ``notes-dev`` (4 tenants, 245 notes, 96 questions: fact / now / as_of / why / decision / unanswerable /
changes), read at run time from ``$KGMEM_NOTES`` (a folder holding ``notes-dev.json``, or the file), by default
``../shared/datasets/notes-dev`` beside the checkout. It is not shipped with kgmem; without it the suite
reports a "skipped" table.

Each tenant of the set is ingested into a kgmem tenant of its own (``bench-notes-<uuid8>``, deleted at the end,
also on an interrupt): its notes as ``{"id", "text", "at"}``, ``MemoryGraph.ingest`` with its defaults, in
file (time) order. Questions are asked "now" (``now=`` the tenant's last note + 1 day), ``as_of`` ones with
``at=`` the question's ``at``:

* ``fact`` / ``now`` / ``as_of`` / ``why`` / ``decision``: ``recall(q, k=10)``; ``why`` questions also
  ``mg.why(q)`` (read by :func:`kgmem_bench.causes.why_answer_ids`);
* ``unanswerable``: right iff recall abstains; the AUROC of recall's confidence, answerable vs unanswerable;
* ``changes``: ``mg.changes(since)`` — P/R/F1 of the ids it returns against the answer notes (it lists compiled
  facts, ``<note>#f<n>``; the same figures with each fact mapped to its note are reported beside);
* every question: ``mg.ask(q)``, read by :func:`ask_answer_ids` and scored as recall is.

Baselines over the same notes in the same run: flat vector (MiniLM cosine, kgmem's embedder), BM25 and
RRF(vector, BM25); for ``as_of`` they see only notes with ``at`` ≤ the question's ``at``.

Scoring (:func:`score_retrieval`, the README's): **hit@1** = the first answer is an answer note and no stale
violation (a ``stale`` id ranked above the best-ranked answer id, or present when no answer id is; for
``as_of`` also any returned note later than ``at``; stale ids count for every type that lists them);
**hit@5** = every answer id in the first 5; **MRR** of the best-ranked answer id (10 read). A type's accuracy
is hit@1 (unanswerable: abstained; changes: F1); the macro average is over the 7 types, a type a system does
not answer counting 0. Per-question failures go to ``<out>/notes_failures.jsonl`` (texts only when the output
directory is outside the repository).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .causes import why_answer_ids
from .devsets import DevSet
from .runner import BenchContext, suite
from .updates import BM25, FUSED, RRF_K, VECTOR, CaseBaselines, _texts_allowed, parse_time, percentile_ms

_FACT_ID = re.compile(r"^(?P<memory>.+)#f\d+$")


def memory_of(id_: str) -> str:
    """The memory a compiled fact was read from (``<memory>#f<n>`` → ``<memory>``); any other id unchanged."""
    m = _FACT_ID.match(id_)
    return m.group("memory") if m else id_


def ask_answer_ids(result: Any) -> list[str] | None:
    """The memory ids an ``AskResult`` answers with, best first; None when it answers nothing or abstains.

    Read from ``result.to_dict()``: no result (intent ``none``) → None; a why → :func:`why_answer_ids`; a
    recall → its hits' ids, None when it abstained; a slot (now / as-of) → the note the value was compiled from
    (a compiled fact ``<note>#f<n>`` → ``<note>``), else the memory its ``evidence`` names, None when the slot
    holds nothing and names none; a history → its versions'
    notes, the current ones first, then newest first. Ids repeat once at most."""
    d = result.to_dict()
    res = d.get("result")
    if res is None:
        return None
    if d.get("operation") == "why":
        return why_answer_ids(result.result)
    ids: list[str] = []
    if isinstance(res, dict) and "hits" in res:
        if res.get("abstained"):
            return None
        ids = [h["id"] for h in res["hits"]]
    elif isinstance(res, dict) and "value" in res:
        ids = [memory_of(res["value"]["id"])] if res.get("value") else [e["id"] for e in res.get("evidence") or []]
    elif isinstance(res, dict) and "versions" in res:
        versions = sorted(res["versions"], key=lambda v: v.get("valid_from") or "", reverse=True)
        versions.sort(key=lambda v: not v.get("current"))
        ids = [memory_of(v["id"]) for v in versions]
    ids = list(dict.fromkeys(ids))
    return ids or None


DATA_FILE = "notes-dev.json"
ENV = "KGMEM_NOTES"
FAILURES_FILE = "notes_failures.jsonl"
DATASET = "notes-dev"

TYPES = ("fact", "now", "as_of", "why", "decision", "unanswerable", "changes")
RETRIEVAL = ("fact", "now", "as_of", "why", "decision")
UNANSWERABLE, CHANGES, AS_OF, WHY_TYPE = "unanswerable", "changes", "as_of", "why"
K = 10
HIT_K = 5
QUICK_TENANTS = 2
QUICK_PER_TYPE = 2
NOW_AFTER = dt.timedelta(days=1)

RECALL = "kgmem recall"
WHY = "kgmem why"
ASK = "kgmem ask"
SYSTEMS = (RECALL, WHY, ASK, VECTOR, BM25, FUSED)
BASELINES = (VECTOR, BM25, FUSED)


# --------------------------------------------------------------------------- locating and loading the data


NOTES = DevSet(DATASET, ENV, "notes-dev", DATA_FILE, "the notes development set")
notes_path = NOTES.path  # $KGMEM_NOTES (a folder, or the file itself), else ../shared/datasets/notes-dev
_data_file = NOTES.data_file
notes_missing = NOTES.missing


def load_tenants(path: str | os.PathLike[str]) -> list[dict]:
    """The file's tenants (``{"tenants": [...]}``), in file order; raises on a tenant without its fields."""
    data = json.loads(Path(path).read_text())
    tenants = data.get("tenants") if isinstance(data, dict) else None
    if not isinstance(tenants, list):
        raise ValueError(f'{path}: expected {{"tenants": [...]}}')
    for t in tenants:
        missing = {"tenant", "notes", "questions"} - set(t)
        if missing:
            raise ValueError(f"{path}: tenant {t.get('tenant', '?')} lacks {sorted(missing)}")
    return tenants


def check_tenants(tenants: Sequence[dict]) -> list[str]:
    """The format's rules as problem strings (empty when kept): a known type, answer/stale ids of the tenant,
    ``at`` on as_of questions only, ``since`` on changes questions only, an empty answer iff unanswerable."""
    problems: list[str] = []
    for t in tenants:
        ids = {n["id"] for n in t["notes"]}
        for q in t["questions"]:
            where = f"{t['tenant']}/{q.get('id')}"
            if q.get("type") not in TYPES:
                problems.append(f"{where}: unknown type {q.get('type')!r}")
            unknown = [x for x in [*q.get("answer", []), *q.get("stale", [])] if x not in ids]
            if unknown:
                problems.append(f"{where}: names ids not in the tenant: {unknown}")
            if ("at" in q) != (q.get("type") == AS_OF):
                problems.append(f"{where}: 'at' belongs to as_of questions only")
            if ("since" in q) != (q.get("type") == CHANGES):
                problems.append(f"{where}: 'since' belongs to changes questions only")
            if (not q.get("answer")) != (q.get("type") == UNANSWERABLE):
                problems.append(f"{where}: an empty answer belongs to unanswerable questions only")
    return problems


def quick_selection(
    tenants: Sequence[dict], n_tenants: int = QUICK_TENANTS, per_type: int = QUICK_PER_TYPE
) -> list[dict]:
    """A stable subset for ``--quick``: the first ``n_tenants`` tenants, each with its first ``per_type``
    questions of every type (file order), so every type is covered."""
    out = []
    for t in tenants[:n_tenants]:
        seen: dict[str, int] = {}
        kept = []
        for q in t["questions"]:
            seen[q["type"]] = seen.get(q["type"], 0) + 1
            if seen[q["type"]] <= per_type:
                kept.append(q)
        out.append({**t, "questions": kept})
    return out


def asked_now(notes: Sequence[dict]) -> dt.datetime:
    """The time every question but as_of is asked: the tenant's last note + 1 day."""
    return max(parse_time(n["at"]) for n in notes) + NOW_AFTER


# --------------------------------------------------------------------------- scoring (pure)


def score_retrieval(
    ranked: Sequence[str] | None,
    answer: Sequence[str],
    stale: Iterable[str] = (),
    *,
    at: str | dt.datetime | None = None,
    times: dict[str, dt.datetime] | None = None,
    read: int = K,
    hit_k: int = HIT_K,
) -> dict:
    """One retrieval question against one ranking (best first; None = abstained).

    ``violation``: a ``stale`` id ranked above the best-ranked answer id (or present when no answer id is); with
    ``at`` (an as_of question) also any returned id whose time in ``times`` is later than ``at``. ``hit1``: the
    first id is an answer id and there is no violation. ``hit5``: every answer id among the first ``hit_k``.
    ``rr``: 1 / the rank of the best-ranked answer id (0 when absent). Only the first ``read`` ids count; a
    repeated id keeps its first position."""
    ids = list(dict.fromkeys(ranked or []))[:read]
    pos = {x: i for i, x in enumerate(ids)}
    answers = set(answer)
    ranks = [pos[a] for a in answers if a in pos]
    best = min(ranks) if ranks else None
    violation = any(s in pos and (best is None or pos[s] < best) for s in stale if s not in answers)
    if at is not None and times:
        limit = at if isinstance(at, dt.datetime) else parse_time(at)
        violation = violation or any(times[x] > limit for x in ids if x in times)
    first_right = bool(ids) and ids[0] in answers
    return {
        "answered": ranked is not None,
        "first_right": first_right,
        "hit1": first_right and not violation,
        "hit5": bool(answers) and answers <= set(ids[:hit_k]),
        "rr": 1.0 / (best + 1) if best is not None else 0.0,
        "violation": violation,
        "rank": None if best is None else best + 1,
    }


def set_prf(returned: Iterable[str] | None, answer: Iterable[str]) -> dict:
    """Set precision, recall and F1 of the returned ids (repeats once) against the answer ids; nothing returned
    gives 0 precision."""
    got = list(dict.fromkeys(returned or []))
    gold = set(answer)
    tp = sum(1 for x in got if x in gold)
    p = tp / len(got) if got else 0.0
    r = tp / len(gold) if gold else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"p": p, "r": r, "f1": f1, "returned": len(got), "tp": tp}


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """The probability that a positive scores above a negative (ties count half): the area under the ROC curve;
    None without both classes."""
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


def accuracy_cell(rows: Sequence[dict], qtype: str) -> float | None:
    """A type's accuracy over one system's scored rows: hit@1 for retrieval types, abstained for unanswerable,
    the mean F1 for changes; None when the system has no row of the type."""
    mine = [r for r in rows if r["type"] == qtype]
    if not mine:
        return None
    if qtype == UNANSWERABLE:
        return sum(bool(r["abstained"]) for r in mine) / len(mine)
    if qtype == CHANGES:
        return float(np.mean([r["f1"] for r in mine]))
    return sum(bool(r["hit1"]) for r in mine) / len(mine)


def macro(rows: Sequence[dict], types: Sequence[str] = TYPES) -> float:
    """The mean of the types' accuracies; a type the system did not answer counts 0."""
    return float(np.mean([accuracy_cell(rows, t) or 0.0 for t in types]))


# --------------------------------------------------------------------------- the run


def _question_rows(
    mg: Any,
    base: CaseBaselines,
    tenant: str,
    q: dict,
    qvec: np.ndarray,
    now: dt.datetime,
    times: dict[str, dt.datetime],
    errors: list[str],
) -> list[dict]:
    """Every system's scored row for one question of one tenant."""
    rows: list[dict] = []
    name = tenant
    qtype, answer, stale = q["type"], list(q.get("answer") or []), list(q.get("stale") or [])
    at = q.get("at")
    common = {
        "tenant": name,
        "qid": q["id"],
        "type": qtype,
        "answer": answer,
        "stale": stale,
        "at": at,
        "since": q.get("since"),
        "q": q["q"],
    }

    def call(label: str, fn: Any) -> tuple[Any, float, str | None]:
        t1 = time.perf_counter()
        try:
            return fn(), time.perf_counter() - t1, None
        except Exception as exc:
            err = f"{type(exc).__name__}: {exc}"
            errors.append(f"{DATASET}/{q['id']}: {label} raised {err}")
            return None, time.perf_counter() - t1, err

    def scored(ranked: list[str] | None) -> dict:
        if qtype == CHANGES:
            return {**set_prf(ranked, answer), "abstained": ranked is None}
        if qtype == UNANSWERABLE:
            return {"abstained": ranked is None}
        return {**score_retrieval(ranked, answer, stale, at=at, times=times), "abstained": ranked is None}

    # recall (changes questions: the API's changes(since) in its place)
    if qtype == CHANGES:
        got, lat, err = call("changes", lambda: mg.changes(q["since"]))
        ids = [r["id"] for r in got or []]
        mapped = list(dict.fromkeys(memory_of(x) for x in ids))
        rows.append(
            {
                **common,
                "system": RECALL,
                "operation": "changes",
                "ranked": ids,
                **set_prf(ids, answer),
                "mapped": set_prf(mapped, answer),
                "abstained": False,
                "latency_s": lat,
                **({"error": err} if err else {}),
            }
        )
    else:
        res, lat, err = call("recall", lambda: mg.recall(q["q"], k=K, at=at) if at else mg.recall(q["q"], k=K, now=now))
        ranked = [h.id for h in res.hits] if res is not None else []
        flag = bool(res.abstained) if res is not None else True
        row = {
            **common,
            "system": RECALL,
            "ranked": ranked,
            "confidence": res.confidence if res is not None else None,
            "latency_s": lat,
            **({"error": err} if err else {}),
        }
        if qtype == UNANSWERABLE:
            row["abstained"] = flag
        else:  # a ranked list; its own abstained flag kept for the over-abstention figure
            row.update(score_retrieval(ranked, answer, stale, at=at, times=times), abstained=flag)
        rows.append(row)
    # why, on why questions
    if qtype == WHY_TYPE:
        why, lat, err = call("why", lambda: mg.why(q["q"], now=now))
        ids_or_none = why_answer_ids(why) if why is not None else None
        rows.append(
            {
                **common,
                "system": WHY,
                "ranked": ids_or_none,
                "symptom": why.symptom.id if why is not None and why.symptom is not None else None,
                "reason": why.reason if why is not None else None,
                "latency_s": lat,
                **scored(ids_or_none),
                **({"error": err} if err else {}),
            }
        )
    # ask, on every question
    res, lat, err = call("ask", lambda: mg.ask(q["q"], now=now))
    ids_or_none = ask_answer_ids(res) if res is not None else None
    rows.append(
        {
            **common,
            "system": ASK,
            "ranked": ids_or_none,
            "intent": res.intent if res is not None else None,
            "operation": res.operation if res is not None else None,
            "latency_s": lat,
            **scored(ids_or_none),
            **({"error": err} if err else {}),
        }
    )
    # the baselines (they answer everything, so never an unanswerable question; no changes)
    if qtype != CHANGES:
        for system, (bids, _keys) in base.rank(q["q"], at, qvec).items():
            if system not in BASELINES:
                continue
            row = {**common, "system": system, "ranked": bids}
            if qtype == UNANSWERABLE:
                row["abstained"] = False
            else:
                row.update(score_retrieval(bids, answer, stale, at=at, times=times), abstained=False)
            rows.append(row)
    return rows


def _run_tenant(ctx: BenchContext, tenant: dict) -> tuple[list[dict], dict, list[str]]:
    """Ingest one tenant's notes into a kgmem tenant of its own, ask every question of every system."""
    records = [{"id": n["id"], "text": n["text"], "at": n["at"]} for n in tenant["notes"]]
    texts = {n["id"]: n["text"] for n in records}
    times = {n["id"]: parse_time(n["at"]) for n in records}
    now = asked_now(records)
    name = tenant["tenant"]
    rows: list[dict] = []
    errors: list[str] = []
    info: dict[str, Any] = {"tenant": name, "notes": len(records), "now": now.isoformat()}
    with ctx.memory_graph() as mg:
        info["kgmem_tenant"] = mg.tenant
        t0 = time.perf_counter()
        try:
            report = mg.ingest(records)
        except Exception as exc:
            errors.append(f"{DATASET}/{name}: ingest raised {type(exc).__name__}: {exc}")
            return rows, info, errors
        info["ingest_s"] = time.perf_counter() - t0
        info["edges"] = dict(report.edges)
        info["facts"] = report.facts
        if report.errors:
            errors.append(f"{DATASET}/{name}: ingest reported {len(report.errors)} error(s): {report.errors[:2]}")
        base = CaseBaselines(ctx.embedder, records)
        qvecs = base._unit(ctx.embedder.encode([q["q"] for q in tenant["questions"]]))
        for qi, q in enumerate(tenant["questions"]):
            rows += _question_rows(mg, base, name, q, qvecs[qi], now, times, errors)
    for r in rows:
        r["top_texts"] = [texts.get(memory_of(x)) for x in (r["ranked"] or [])[:3]]
        r["answer_texts"] = [texts.get(x) for x in r["answer"]]
        r["stale_texts"] = [texts.get(x) for x in r["stale"]]
    return rows, info, errors


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.0f} %"


def _rate(rows: Sequence[dict], field: str) -> str:
    return (
        f"{100 * sum(bool(r[field]) for r in rows) / len(rows):.0f} % ({sum(bool(r[field]) for r in rows)}/{len(rows)})"
        if rows
        else "—"
    )


def summarise(rows: Sequence[dict], tenants: Sequence[str]) -> dict:
    """The figures of the tables: per system, type accuracy, macro averages, retrieval details, per tenant."""
    out: dict[str, Any] = {}
    for s in SYSTEMS:
        mine = [r for r in rows if r["system"] == s]
        ret = [r for r in mine if r["type"] in RETRIEVAL]
        out[s] = {
            "accuracy": {t: accuracy_cell(mine, t) for t in TYPES},
            "n": {t: sum(1 for r in mine if r["type"] == t) for t in TYPES},
            "macro7": macro(mine) if mine else None,
            "macro_retrieval": macro(mine, RETRIEVAL) if ret else None,
            "answerable": {
                "n": len(ret),
                "first_right_no_violation": sum(bool(r["hit1"]) for r in ret),
                "first_right": sum(bool(r["first_right"]) for r in ret),
                "hit5": sum(bool(r["hit5"]) for r in ret),
                "mrr": float(np.mean([r["rr"] for r in ret])) if ret else None,
                "violations": sum(bool(r["violation"]) for r in ret),
                "abstained": sum(bool(r["abstained"]) for r in ret),
            },
            "per_type": {
                t: {
                    "n": len(tr),
                    "hit1": sum(bool(r["hit1"]) for r in tr),
                    "hit5": sum(bool(r["hit5"]) for r in tr),
                    "mrr": float(np.mean([r["rr"] for r in tr])),
                    "violations": sum(bool(r["violation"]) for r in tr),
                }
                for t in RETRIEVAL
                if (tr := [r for r in ret if r["type"] == t])
            },
            "per_tenant": {
                name: {
                    "n": len(tr := [r for r in ret if r["tenant"] == name]),
                    "hit1": sum(bool(r["hit1"]) for r in tr),
                    "macro7": macro([r for r in mine if r["tenant"] == name]) if mine else None,
                }
                for name in tenants
            },
        }
    rec = [r for r in rows if r["system"] == RECALL]
    pos = [r["confidence"] or 0.0 for r in rec if r["type"] in RETRIEVAL]
    neg = [r["confidence"] or 0.0 for r in rec if r["type"] == UNANSWERABLE]
    out["recall_confidence_auroc"] = auroc(pos, neg)
    return out


def _tables(summary: dict, rows: Sequence[dict], tenants: Sequence[str], quick: bool) -> list[dict]:
    suffix = " — quick" if quick else ""
    type_rows = []
    for t in TYPES:
        n = summary[RECALL]["n"][t] or summary[ASK]["n"][t]
        type_rows.append([t, n, *[_fmt(summary[s]["accuracy"][t]) for s in SYSTEMS]])
    ans_n = summary[RECALL]["answerable"]["n"]
    type_rows.append(
        [
            "answerable (fact … decision): first right, no violation",
            ans_n,
            *[
                f"{100 * summary[s]['answerable']['first_right_no_violation'] / summary[s]['answerable']['n']:.0f} %"
                f" ({summary[s]['answerable']['first_right_no_violation']}/{summary[s]['answerable']['n']})"
                if summary[s]["answerable"]["n"]
                else "—"
                for s in SYSTEMS
            ],
        ]
    )
    type_rows.append(
        ["macro over the 7 types", "", *[_fmt(summary[s]["macro7"]) if s != WHY else "—" for s in SYSTEMS]]
    )
    type_rows.append(
        [
            "macro over the 5 retrieval types",
            "",
            *[_fmt(summary[s]["macro_retrieval"]) if s != WHY else "—" for s in SYSTEMS],
        ]
    )
    main = {
        "title": f"{DATASET}: accuracy per type{suffix}",
        "columns": ["type", "n", *SYSTEMS],
        "rows": type_rows,
        "note": "fact / now / as_of / why / decision: hit@1 = the first answer is an answer note and no stale "
        "violation; unanswerable: abstained (recall's abstained flag; ask: it answers nothing; the baselines "
        "cannot abstain); changes: F1 — kgmem recall's column is the API's changes(since) (compiled facts, "
        "counted by the ids it returns), ask's its own answer. kgmem recall(q, k=10, now=last note + 1 day; "
        "as_of: at=the question's at); why: mg.why(q, now=…) on why questions, read by why_answer_ids; ask: "
        "mg.ask(q, now=…), read by ask_answer_ids. Baselines over the tenant's notes (as_of: notes with at ≤ "
        f"the question's at); RRF k = {RRF_K}. A macro counts a type a system does not answer as 0.",
    }
    detail_rows = []
    for t in (*RETRIEVAL, "all"):
        for metric in ("hit@1", "hit@5", "MRR", "stale violations"):
            cells = []
            for s in SYSTEMS:
                pt = summary[s]["answerable"] if t == "all" else summary[s]["per_type"].get(t)
                if not pt or not pt["n"]:
                    cells.append("—")
                    continue
                key = {"hit@1": "first_right_no_violation" if t == "all" else "hit1", "hit@5": "hit5"}.get(metric)
                if metric == "MRR":
                    cells.append(f"{pt['mrr']:.2f}")
                elif metric == "stale violations":
                    cells.append(f"{pt['violations']}/{pt['n']}")
                else:
                    cells.append(f"{100 * pt[key] / pt['n']:.0f} %")
            n = (summary[RECALL]["answerable"] if t == "all" else summary[RECALL]["per_type"].get(t, {})).get("n", 0)
            detail_rows.append([t, metric, n, *cells])
    detail = {
        "title": f"{DATASET}: retrieval questions, hit@1 / hit@5 / MRR / stale violations{suffix}",
        "columns": ["type", "measure", "n", *SYSTEMS],
        "rows": detail_rows,
        "note": "hit@5: every answer id in the first 5; MRR of the best-ranked answer id among the first 10 (0 "
        "when absent); a stale violation: a stale id above the best-ranked answer id (or present without one), "
        "for as_of also a returned note later than the question's at.",
    }
    tenant_rows = []
    for name in tenants:
        cells = []
        for s in (RECALL, ASK, *BASELINES):
            pt = summary[s]["per_tenant"][name]
            cells.append(f"{100 * pt['hit1'] / pt['n']:.0f} % ({pt['hit1']}/{pt['n']})" if pt["n"] else "—")
        tenant_rows.append(
            [
                name,
                summary[RECALL]["per_tenant"][name]["n"],
                *cells,
                _fmt(summary[RECALL]["per_tenant"][name]["macro7"]),
            ]
        )
    per_tenant = {
        "title": f"{DATASET}: per tenant, answerable questions' hit@1{suffix}",
        "columns": ["tenant", "n", RECALL, ASK, *BASELINES, "kgmem recall macro (7 types)"],
        "rows": tenant_rows,
        "note": "n = the tenant's fact / now / as_of / why / decision questions.",
    }
    rec = [r for r in rows if r["system"] == RECALL]
    ask = [r for r in rows if r["system"] == ASK]
    un_rec = [r for r in rec if r["type"] == UNANSWERABLE]
    ans_rec = [r for r in rec if r["type"] in RETRIEVAL]
    un_ask = [r for r in ask if r["type"] == UNANSWERABLE]
    ans_ask = [r for r in ask if r["type"] in RETRIEVAL]
    au = summary["recall_confidence_auroc"]
    abst = {
        "title": f"{DATASET}: abstention{suffix}",
        "columns": [
            "system",
            "abstained on unanswerable",
            "abstained on answerable (over-abstention)",
            "AUROC of the confidence",
        ],
        "rows": [
            [RECALL, _rate(un_rec, "abstained"), _rate(ans_rec, "abstained"), "—" if au is None else f"{au:.2f}"],
            [ASK, _rate(un_ask, "abstained"), _rate(ans_ask, "abstained"), "—"],
        ],
        "note": "AUROC: recall's confidence, answerable (fact … decision) above unanswerable (no confidence = 0). "
        "ask abstains when ask_answer_ids gives None (nothing answered, a recall that declined, an empty slot).",
    }
    ch_rows = []
    for r in [x for x in rows if x["type"] == CHANGES and x["system"] == RECALL]:
        a = next((x for x in rows if x["system"] == ASK and x["qid"] == r["qid"]), None)
        ch_rows.append(
            [
                r["qid"],
                r["since"],
                len(r["answer"]),
                r["returned"],
                f"{r['p']:.2f} / {r['r']:.2f} / {r['f1']:.2f}",
                f"{r['mapped']['p']:.2f} / {r['mapped']['r']:.2f} / {r['mapped']['f1']:.2f} ({r['mapped']['returned']})",
                "—"
                if a is None
                else f"{a['p']:.2f} / {a['r']:.2f} / {a['f1']:.2f} ({a['returned']}, {a.get('operation')})",
            ]
        )
    changes = {
        "title": f"{DATASET}: changes questions{suffix}",
        "columns": [
            "question",
            "since",
            "answer notes",
            "changes(since) returned",
            "P / R / F1 (its ids)",
            "P / R / F1 (facts mapped to their notes; n)",
            "ask: P / R / F1 (n, operation)",
        ],
        "rows": ch_rows or [["—"] * 7],
        "note": "mg.changes(since) lists fact versions (ids <note>#f<n>) that took effect or were recorded since "
        "the date — recorded means ingested, i.e. during this run — not notes: its own ids never match a note id.",
    }
    ops: dict[str, dict[str, int]] = {}
    for r in ask:
        ops.setdefault(r["type"], {})
        key = r.get("operation") or f"none ({r.get('intent')})"
        ops[r["type"]][key] = ops[r["type"]].get(key, 0) + 1
    op_keys = sorted({k for v in ops.values() for k in v})
    ask_ops = {
        "title": f"{DATASET}: what ask did, per type{suffix}",
        "columns": ["type", *op_keys],
        "rows": [[t, *[ops.get(t, {}).get(k, 0) for k in op_keys]] for t in TYPES if t in ops],
        "note": "AskResult.operation (none = the router's intent 'none': no memory operation).",
    }
    return [main, detail, per_tenant, abst, changes, ask_ops]


def per_question(rows: Sequence[dict]) -> dict[str, dict]:
    """Ids only, per question: ``{qid: {"type", "answer", "stale", "correct": {system: bool}, "top":
    {system: the first 3 ids, or None when it abstained}}}``; correct = hit@1 (unanswerable: abstained;
    changes: F1 > 0)."""
    out: dict[str, dict] = {}
    for r in rows:
        q = out.setdefault(
            r["qid"], {"type": r["type"], "answer": r["answer"], "stale": r["stale"], "correct": {}, "top": {}}
        )
        q["correct"][r["system"]] = _correct(r)
        q["top"][r["system"]] = None if r["ranked"] is None else list(r["ranked"][:3])
        if r["type"] == CHANGES:
            q.setdefault("f1", {})[r["system"]] = r.get("f1")
        if r["system"] == ASK:
            q["ask_operation"] = r.get("operation")
    return out


def _correct(r: dict) -> bool:
    if r["type"] == UNANSWERABLE:
        return bool(r["abstained"])
    if r["type"] == CHANGES:
        return bool(r.get("f1"))
    return bool(r.get("hit1"))


def _failure_lines(rows: list[dict], texts_ok: bool) -> list[dict]:
    """One line per question and system that was not right (kgmem recall first), for error analysis."""
    right: dict[str, list[str]] = {}
    for r in rows:
        if _correct(r):
            right.setdefault(r["qid"], []).append(r["system"])
    out = []
    for system in SYSTEMS:
        for r in rows:
            if r["system"] != system or _correct(r):
                continue
            line = {
                "dataset": DATASET,
                "system": system,
                "tenant": r["tenant"],
                "qid": r["qid"],
                "type": r["type"],
                "at": r["at"],
                "since": r["since"],
                "question": r["q"] if texts_ok else None,
                "answer": r["answer"],
                "stale": r["stale"],
                "abstained": r.get("abstained"),
                "rank_of_answer": r.get("rank"),
                "violation": r.get("violation"),
                "ranked": None if r["ranked"] is None else list(r["ranked"][:K]),
                "top3": [
                    {"id": x, "text": r["top_texts"][j] if texts_ok else None}
                    for j, x in enumerate((r["ranked"] or [])[:3])
                ],
                "answer_texts": r["answer_texts"] if texts_ok else None,
                "stale_texts": r["stale_texts"] if texts_ok else None,
                "others_right": sorted(right.get(r["qid"], [])),
            }
            for extra in ("confidence", "symptom", "reason", "intent", "operation", "error", "p", "r", "f1"):
                if extra in r:
                    line[extra] = r[extra]
            out.append(line)
    return out


def _warm_up(ctx: BenchContext) -> None:
    """Load the embedder, the router and the schema with an untimed ingest, recall, why and ask."""
    ctx.embedder.encode(["warm up"])
    with ctx.memory_graph() as mg:
        mg.ingest([{"id": "warm-up-1", "text": "a warm-up note, not part of any tenant", "at": "2024-01-01T00:00:00Z"}])
        mg.recall("warm-up note", k=K)
        mg.why("why the warm-up note?")
        mg.ask("what does the warm-up note say?")


@suite("notes", title="Plain notes of several users: the right first answer per question type, beside flat vector")
def run(ctx: BenchContext) -> dict:
    """Plain notes of several users: is the first answer (recall, why, ask) the right note, per question type?"""
    figures: dict[str, Any] = {
        "settings": {
            "k": K,
            "hit_k": HIT_K,
            "rrf_k": RRF_K,
            "quick": ctx.quick,
            "systems": SYSTEMS,
            "now_after_last_note_days": 1,
        }
    }
    missing = notes_missing()
    if missing:
        ctx.log(f"{DATASET} skipped: {missing['rows'][0][0]} at {missing['rows'][0][1]}")
        figures[DATASET] = {"skipped": True, "looked_at": missing["rows"][0][1]}
        return {"tables": [missing], "figures": figures, "notes": [f"{DATASET}: skipped."]}
    path = _data_file(notes_path())
    tenants = load_tenants(path)
    notes: list[str] = []
    errors: list[str] = []
    problems = check_tenants(tenants)
    if problems:
        notes.append(f"{DATASET}: {len(problems)} format problem(s): " + "; ".join(problems[:10]))
    chosen = quick_selection(tenants) if ctx.quick else tenants
    quick = ctx.quick
    names = [t["tenant"] for t in chosen]
    ctx.log(f"{DATASET}: {len(chosen)} of {len(tenants)} tenants ({path})")
    with ctx.timed("warm-up"):
        _warm_up(ctx)
    emb = ctx.embedder
    notes.append(
        f"Embedder backend: {getattr(emb, 'backend', '?')}"
        + (f" (fallback: {emb.fallback_reason})" if getattr(emb, "fallback_reason", None) else "")
        + "; kgmem and the vector baselines share it."
    )
    rows: list[dict] = []
    infos: list[dict] = []
    for t in chosen:
        with ctx.timed(t["tenant"]):
            r, info, e = _run_tenant(ctx, t)
        rows += r
        infos.append(info)
        errors += e
        ctx.log(f"{DATASET}: {t['tenant']} done ({len(t['questions'])} questions)")
    summary = summarise(rows, names)
    tables = _tables(summary, rows, names, quick)
    lat = {
        s: [r["latency_s"] for r in rows if r["system"] == s and "latency_s" in r and r.get("operation") != "changes"]
        for s in (RECALL, WHY, ASK)
    }
    edges: dict[str, int] = {}
    for i in infos:
        for k, v in (i.get("edges") or {}).items():
            edges[k] = edges.get(k, 0) + int(v)
    edges["report.facts"] = sum(int(i.get("facts") or 0) for i in infos)
    fact_first = sum(
        1
        for r in rows
        if r["system"] == RECALL and r["ranked"] and _FACT_ID.match(r["ranked"][0]) and r["type"] != CHANGES
    )
    cost = {
        "notes": sum(i["notes"] for i in infos),
        "ingest_s": {i["tenant"]: i.get("ingest_s") for i in infos},
        **{
            f"{s.split()[-1]}_ms": {"p50": percentile_ms(v, 50), "p95": percentile_ms(v, 95), "n": len(v)}
            for s, v in lat.items()
        },
    }
    edge_keys = sorted(edges)
    tables.append(
        {
            "title": f"{DATASET}: cost and what ingest wrote",
            "columns": ["notes", "ingest per tenant", "recall p50 / p95", "why p50", "ask p50 / p95", *edge_keys],
            "rows": [
                [
                    cost["notes"],
                    ", ".join(f"{i['tenant']} {i.get('ingest_s', float('nan')):.1f} s" for i in infos),
                    f"{cost['recall_ms']['p50']:.0f} / {cost['recall_ms']['p95']:.0f} ms",
                    f"{cost['why_ms']['p50']:.0f} ms",
                    f"{cost['ask_ms']['p50']:.0f} / {cost['ask_ms']['p95']:.0f} ms",
                    *[edges[k] for k in edge_keys],
                ]
            ],
            "note": "Wall time of MemoryGraph.ingest (defaults) per tenant into an empty tenant and of each call; "
            "local Neo4j, after an untimed warm-up. Edge columns: IngestReport.edges summed over the tenants; "
            f"report.facts = compiled facts. Recall's first hit was a compiled fact (<note>#f<n>, scored as a "
            f"wrong note) for {fact_first} question(s).",
        }
    )
    r_ans = summary[RECALL]["answerable"]
    v_ans = summary[VECTOR]["answerable"]
    notes.append(
        f"{DATASET}: recall's first hit right (no stale violation) for "
        f"{r_ans['first_right_no_violation']}/{r_ans['n']} answerable questions, flat vector "
        f"{v_ans['first_right_no_violation']}/{v_ans['n']}; ask {summary[ASK]['answerable']['first_right_no_violation']}"
        f"/{summary[ASK]['answerable']['n']}; why {summary[WHY]['answerable']['first_right_no_violation']}"
        f"/{summary[WHY]['answerable']['n']} why-questions"
        + ("; quick: the first tenants, the first questions of every type" if quick else "")
        + "."
    )
    texts_ok = _texts_allowed(ctx.out_dir)
    failures = _failure_lines(rows, texts_ok)
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    fail_path = ctx.out_dir / FAILURES_FILE
    with fail_path.open("w") as fh:
        for line in failures:
            fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
    notes.append(
        f"Failures (one line per question and system not right, kgmem recall first): {fail_path} "
        f"({sum(1 for f in failures if f['system'] == RECALL)} recall lines, {len(failures)} in all)"
        + ("" if texts_ok else "; the output is inside the repository, so the data set's texts are left out (ids only)")
        + "."
    )
    figures[DATASET] = {
        "path": str(path),
        "tenants_run": names,
        "questions": sum(len(t["questions"]) for t in chosen),
        "format_problems": problems,
        "summary": summary,
        "cost": cost,
        "edges": edges,
        "recall_first_hit_a_fact": fact_first,
        "per_tenant": infos,
        "per_question": per_question(rows),
    }
    figures["failures_file"] = str(fail_path)
    return {"tables": tables, "figures": figures, "notes": notes, "errors": errors}
