"""Suite ``causes``: why-questions over plain-text notes — does the why-query return the note that states the
cause (and the chain behind it), and abstain when no note does?

Data: ``causes-dev`` (100 cases, 600 memories, 130 questions, 20 of them with no stated cause), read at run
time from ``$KGMEM_CAUSES`` (a folder holding ``causes-dev.json``, or the file), by default
``../shared/datasets/causes-dev`` beside the checkout. It is not shipped with kgmem; without it the suite
reports a "skipped" table.

Each case is ingested as plain text (``{"id", "text", "at"}`` only, ``MemoryGraph.ingest`` with its defaults,
in the file's shuffled order) into a tenant of its own (``bench-causes-<uuid8>``, deleted when the case ends,
also on an interrupt). Each question is asked with ``mg.why(q)``; :func:`why_answer_ids` turns the result into
the ranked answer (None = abstained). Over the same memories in the same run: kgmem ``recall(q, k=10)``, flat
vector (all-MiniLM-L6-v2 cosine, the embedder kgmem uses), BM25 and RRF(vector, BM25) — ranked lists whose
first hit is the answer; they cannot abstain, so they fail every abstain question.

Scoring (the dataset's README), :func:`score_answer`: an answerable question passes when the first answer is
in ``cause`` (the effect first passes only when it is its own cause); an abstain question passes only when
nothing is returned; chain questions are also scored "in order" (every ``chain`` id among the first 10 answers,
nearest cause first, root last) and by chain recall. Also reported: over-abstention on the 110 answerable
questions, hit@3 for the cause, whether the effect was found at all (for why: as its symptom or among the
answers), why and recall p50 latency, the derived edges ingest wrote. Per-question failures go to
``<out>/causes_failures.jsonl`` (texts only when the output directory is outside the repository).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .devsets import DevSet, load_cases
from .runner import BenchContext, suite
from .updates import BM25, FUSED, RRF_K, VECTOR, CaseBaselines, _texts_allowed, percentile_ms
from .updates import quick_selection as _quick_by


def why_answer_ids(why: Any) -> list[str] | None:
    """The memory ids a ``Why`` result answers with, nearest cause first; None when it abstained.

    The rule: abstained → None; the ids of ``why.to_dict()["causes"]`` (the memories that state the cause,
    nearest first: the symptom itself when it states its own), then those of ``paths[0][1:]`` (the best path
    after the symptom) and the root ids not listed yet; if that is empty (but not abstained), ``[symptom id]``."""
    if why.abstained:
        return None
    d = why.to_dict()
    ids = [c["id"] for c in d.get("causes") or []]
    paths = d.get("paths") or []
    ids += list(paths[0][1:]) if paths else []
    ids += [r["id"] for r in d.get("roots") or []]
    ids = list(dict.fromkeys(ids))
    if not ids and d.get("symptom"):
        ids = [d["symptom"]["id"]]
    return ids


DATA_FILE = "causes-dev.json"
ENV = "KGMEM_CAUSES"
FAILURES_FILE = "causes_failures.jsonl"
DATASET = "causes-dev"

KINDS = ("separate_postmortem", "chain", "same_note", "cause_first", "no_cause")
NO_CAUSE = "no_cause"
ABSTAIN_GROUP, ANSWERABLE_GROUP = "no_cause: abstain", "no_cause: answerable"
GROUPS = ("separate_postmortem", "chain", "same_note", "cause_first", ABSTAIN_GROUP, ANSWERABLE_GROUP)
K = 10  # results read per system (why: its whole answer, at most K)
QUICK_CASES = 12

WHY = "kgmem why"
RECALL = "kgmem recall"
SYSTEMS = (WHY, RECALL, VECTOR, BM25, FUSED)


# --------------------------------------------------------------------------- locating and loading the data


CAUSES = DevSet(DATASET, ENV, "causes-dev", DATA_FILE, "the causes development set")
causes_path = CAUSES.path  # $KGMEM_CAUSES (a folder, or the file itself), else ../shared/datasets/causes-dev
_data_file = CAUSES.data_file
causes_missing = CAUSES.missing


def check_cases(cases: Sequence[dict]) -> list[str]:
    """The format's rules as problem strings (empty when kept): a known kind, memories of exactly id/text/at,
    ``effect``/``cause``/``chain`` naming memories of the case, ``chain[0] == cause[0]``, empty causes only in
    no_cause cases."""
    problems: list[str] = []
    for c in cases:
        key = c["key"]
        if c["kind"] not in KINDS:
            problems.append(f"{key}: unknown kind {c['kind']!r}")
        ids = set()
        for m in c["memories"]:
            if set(m) != {"id", "text", "at"}:
                problems.append(f"{key}: memory {m.get('id')} has fields {sorted(m)} (want id, text, at)")
            ids.add(m.get("id"))
        for i, q in enumerate(c["questions"]):
            named = [q.get("effect"), *q.get("cause", []), *q.get("chain", [])]
            unknown = [x for x in named if x not in ids]
            if unknown:
                problems.append(f"{key} q{i}: names ids not in the case: {unknown}")
            if q.get("chain") and (not q.get("cause") or q["chain"][0] != q["cause"][0]):
                problems.append(f"{key} q{i}: chain[0] is not cause[0]")
            if not q.get("cause") and c["kind"] != NO_CAUSE:
                problems.append(f"{key} q{i}: an empty cause outside no_cause")
    return problems


def question_group(kind: str, question: dict) -> str:
    """The row a question is reported in: its case's kind, no_cause split into abstain and answerable."""
    if kind != NO_CAUSE:
        return kind
    return ANSWERABLE_GROUP if question.get("cause") else ABSTAIN_GROUP


def _case_group(case: dict) -> str:
    groups = {question_group(case["kind"], q) for q in case["questions"]}
    return ANSWERABLE_GROUP if ANSWERABLE_GROUP in groups else case["kind"]


def quick_selection(cases: Sequence[dict], n: int = QUICK_CASES) -> list[dict]:
    """A stable subset for ``--quick``: the kinds in turn (no_cause cases with an answerable question a group of
    their own, so both no_cause rows are covered), each in file order, until ``n`` cases; in file order."""
    return _quick_by(cases, n, key=_case_group)


# --------------------------------------------------------------------------- scoring (pure)


def in_order(ids: Sequence[str], chain: Sequence[str]) -> bool:
    """Every id of ``chain`` is among ``ids`` and they appear in the chain's order (others may sit between them;
    a repeated id keeps its first position)."""
    pos: dict[str, int] = {}
    for i, x in enumerate(ids):
        pos.setdefault(x, i)
    if not chain or any(c not in pos for c in chain):
        return False
    places = [pos[c] for c in chain]
    return all(a < b for a, b in zip(places, places[1:]))


def chain_recall(ids: Iterable[str], chain: Sequence[str]) -> float:
    """The share of ``chain``'s ids among ``ids``, in any order."""
    got = set(ids)
    return sum(c in got for c in dict.fromkeys(chain)) / len(set(chain)) if chain else 0.0


def score_answer(
    answer: Sequence[str] | None,
    effect: str,
    cause: Sequence[str],
    chain: Sequence[str] | None = None,
    *,
    read: int = K,
    symptom: str | None = None,
    can_abstain: bool = True,
) -> dict:
    """One question against one system's answer (ids best first; None or empty = abstained).

    ``pass``: with a cause, the first answer is in ``cause`` (the effect first passes only when it is in
    ``cause``, i.e. its own cause); without one, the system abstained — returning any memory fails.
    ``hit3``: a cause id among the first 3 answers. ``effect_found``: the effect among the first ``read``
    answers, or the system's ``symptom``. For a ``chain``: ``in_order`` (:func:`in_order` over the first
    ``read`` answers) and ``chain_recall``. ``can_abstain=False`` (a plain ranked list): an empty list is a
    miss, not an abstention, so it never passes an abstain question."""
    ids = list(dict.fromkeys(answer or []))[:read]
    abstained = not ids and can_abstain
    causes = set(cause)
    out = {
        "abstained": abstained,
        "answerable": bool(causes),
        "pass": (ids[0] in causes) if causes and ids else (abstained and not causes),
        "hit3": bool(causes) and any(x in causes for x in ids[:3]),
        "effect_found": effect in ids or (symptom is not None and symptom == effect),
        "first": ids[0] if ids else None,
    }
    if chain:
        out["in_order"] = in_order(ids, chain)
        out["chain_recall"] = chain_recall(ids, chain)
    return out


def _pct(n: float, d: int) -> str:
    return f"{100 * n / d:.0f} % ({n:g}/{d})" if d else "—"


def aggregate(rows: Sequence[dict]) -> dict:
    """Per-question rows (``system``, ``group`` and :func:`score_answer`'s fields) → counts
    ``{system: {group: {"n", "pass", "abstained", "hit3", "effect_found", "chain_n", "in_order",
    "chain_recall", "chain_pass"}}}``; groups ``"answerable"`` (every question with a cause) and ``"all"`` are
    added; chain fields count only questions with a chain (``chain_pass``: their cause-first passes)."""
    out: dict[str, dict] = {}
    for r in rows:
        for group in (r["group"], "answerable" if r["answerable"] else None, "all"):
            if group is None:
                continue
            cell = out.setdefault(r["system"], {}).setdefault(
                group,
                {
                    "n": 0,
                    "pass": 0,
                    "abstained": 0,
                    "hit3": 0,
                    "effect_found": 0,
                    "chain_n": 0,
                    "in_order": 0,
                    "chain_recall": 0.0,
                    "chain_pass": 0,
                },
            )
            cell["n"] += 1
            for f in ("pass", "abstained", "hit3", "effect_found"):
                cell[f] += bool(r[f])
            if "in_order" in r:
                cell["chain_n"] += 1
                cell["in_order"] += bool(r["in_order"])
                cell["chain_recall"] += float(r["chain_recall"])
                cell["chain_pass"] += bool(r["pass"])
    return out


def _cell(agg: dict, system: str, group: str) -> dict:
    return agg.get(system, {}).get(group) or {
        "n": 0,
        "pass": 0,
        "abstained": 0,
        "hit3": 0,
        "effect_found": 0,
        "chain_n": 0,
        "in_order": 0,
        "chain_recall": 0.0,
        "chain_pass": 0,
    }


# --------------------------------------------------------------------------- the run


def _run_case(ctx: BenchContext, case: dict) -> tuple[list[dict], dict, list[str]]:
    """Ingest one case into its own tenant, ask every question of every system; (rows, case info, errors)."""
    records = [{"id": m["id"], "text": m["text"], "at": m["at"]} for m in case["memories"]]
    texts = {m["id"]: m["text"] for m in records}
    rows: list[dict] = []
    errors: list[str] = []
    info: dict[str, Any] = {"key": case["key"], "kind": case["kind"], "memories": len(records)}
    with ctx.memory_graph() as mg:
        info["tenant"] = mg.tenant
        t0 = time.perf_counter()
        try:
            report = mg.ingest(records)
        except Exception as exc:
            errors.append(f"{DATASET}/{case['key']}: ingest raised {type(exc).__name__}: {exc}")
            return rows, info, errors
        info["ingest_s"] = time.perf_counter() - t0
        info["edges"] = dict(report.edges)
        info["facts"] = report.facts
        if report.errors:
            errors.append(
                f"{DATASET}/{case['key']}: ingest reported {len(report.errors)} error(s): {report.errors[:2]}"
            )
        base = CaseBaselines(ctx.embedder, records)
        qvecs = base._unit(ctx.embedder.encode([q["q"] for q in case["questions"]]))
        for qi, q in enumerate(case["questions"]):
            cause, chain = list(q.get("cause") or []), list(q.get("chain") or [])
            common = {
                "case": case["key"],
                "index": qi,
                "kind": case["kind"],
                "group": question_group(case["kind"], q),
                "effect": q["effect"],
                "cause": cause,
                "chain": chain,
                "q": q["q"],
            }
            # the why-query
            t1 = time.perf_counter()
            err = None
            try:
                why = mg.why(q["q"])
                answer = why_answer_ids(why)
                symptom = why.symptom.id if why.symptom is not None else None
                reason = why.reason
            except Exception as exc:
                answer, symptom, reason = None, None, None
                err = f"{type(exc).__name__}: {exc}"
                errors.append(f"{DATASET}/{case['key']} q{qi}: why raised {err}")
            latency = time.perf_counter() - t1
            rows.append(
                {
                    **common,
                    "system": WHY,
                    "answer": answer,
                    "symptom": symptom,
                    "reason": reason,
                    "latency_s": latency,
                    **score_answer(answer, q["effect"], cause, chain, symptom=symptom),
                    **({"error": err} if err else {}),
                }
            )
            # recall, a ranked list (its own abstained flag kept apart: the README scores a plain ranking)
            t1 = time.perf_counter()
            err = None
            try:
                res = mg.recall(q["q"], k=K)
                ranked = [h.id for h in res.hits]
                flag, confidence = bool(res.abstained), res.confidence
            except Exception as exc:
                ranked, flag, confidence = [], None, None
                err = f"{type(exc).__name__}: {exc}"
                errors.append(f"{DATASET}/{case['key']} q{qi}: recall raised {err}")
            latency = time.perf_counter() - t1
            rows.append(
                {
                    **common,
                    "system": RECALL,
                    "answer": ranked,
                    "recall_abstained": flag,
                    "confidence": confidence,
                    "latency_s": latency,
                    **score_answer(ranked, q["effect"], cause, chain, can_abstain=False),
                    **({"error": err} if err else {}),
                }
            )
            for system, (bids, _keys) in base.rank(q["q"], None, qvecs[qi]).items():
                if system in SYSTEMS:
                    scored = score_answer(bids, q["effect"], cause, chain, can_abstain=False)
                    rows.append({**common, "system": system, "answer": bids, **scored})
    for r in rows:
        r["top_texts"] = [texts.get(x) for x in (r["answer"] or [])[:3]]
        r["effect_text"] = texts.get(r["effect"])
        r["cause_texts"] = [texts.get(x) for x in r["cause"]]
    return rows, info, errors


def _tables(agg: dict, quick: bool, n_cases: int) -> list[dict]:
    suffix = " — quick" if quick else ""
    rows = []
    for group in (*GROUPS, "answerable", "all"):
        n = _cell(agg, WHY, group)["n"]
        if n:
            rows.append([group, n, *[_pct(_cell(agg, s, group)["pass"], n) for s in SYSTEMS]])
    pass_table = {
        "title": f"{DATASET}: pass rate per kind ({n_cases} cases){suffix}",
        "columns": ["kind", "n", *SYSTEMS],
        "rows": rows,
        "note": "pass: answerable — the first answer is a memory in `cause` (the effect first passes only when it "
        "is its own cause); abstain (no_cause: abstain) — nothing returned. kgmem why: mg.why(q) read by "
        "why_answer_ids (None = abstained). kgmem recall: recall(q, k=10)'s hits as a ranked list; flat vector "
        "(MiniLM cosine, kgmem's embedder), BM25 (matches only) and RRF(vector, BM25) "
        f"(k = {RRF_K}) over the case's memories: ranked lists cannot abstain, so they fail every abstain "
        "question. answerable = every question with a cause.",
    }
    diag_rows = []
    ans = {s: _cell(agg, s, "answerable") for s in SYSTEMS}
    every = {s: _cell(agg, s, "all") for s in SYSTEMS}
    diag_rows.append(
        ["over-abstention (abstained on an answerable question)", ans[WHY]["n"]]
        + [_pct(ans[s]["abstained"], ans[s]["n"]) for s in SYSTEMS]
    )
    diag_rows.append(
        ["hit@3: a cause among the first 3 answers", ans[WHY]["n"]]
        + [_pct(ans[s]["hit3"], ans[s]["n"]) for s in SYSTEMS]
    )
    diag_rows.append(
        ["effect found (why: as its symptom or an answer; others: in the top 10)", every[WHY]["n"]]
        + [_pct(every[s]["effect_found"], every[s]["n"]) for s in SYSTEMS]
    )
    diag = {
        "title": f"{DATASET}: over-abstention, hit@3 and the effect found{suffix}",
        "columns": ["measure", "n", *SYSTEMS],
        "rows": diag_rows,
        "note": "Ranked lists never abstain (an empty BM25 list — no query word in any memory — is a miss). "
        'effect found separates "found the event but not the reason" from "found nothing".',
    }
    ch = {s: _cell(agg, s, "all") for s in SYSTEMS}
    chain_rows = []
    n = ch[WHY]["chain_n"]
    if n:
        chain_rows = [
            ["cause first (pass)", n, *[_pct(ch[s]["chain_pass"], n) for s in SYSTEMS]],
            ["chain in order", n, *[_pct(ch[s]["in_order"], n) for s in SYSTEMS]],
            [
                "chain recall (mean share of chain ids returned)",
                n,
                *[f"{ch[s]['chain_recall'] / n:.2f}" for s in SYSTEMS],
            ],
        ]
    chain_table = {
        "title": f"{DATASET}: questions with a chain, cause first and chain in order{suffix}",
        "columns": ["measure", "n", *SYSTEMS],
        "rows": chain_rows or [["—", 0, *["—" for _ in SYSTEMS]]],
        "note": "in order: every chain id among the first 10 answers (why: its whole answer, the best path "
        "after the symptom then the other roots), nearest cause first, root last, others may sit between.",
    }
    return [pass_table, diag, chain_table]


def per_question(rows: Sequence[dict]) -> dict[str, dict]:
    """Ids only, per question: ``{"<case>/<index>": {"group", "effect", "cause", "chain", "pass": {system: bool},
    "answer": {system: the first 3 ids, or None when it abstained}}}``."""
    out: dict[str, dict] = {}
    for r in rows:
        q = out.setdefault(
            f"{r['case']}/{r['index']}",
            {
                "group": r["group"],
                "effect": r["effect"],
                "cause": r["cause"],
                "chain": r["chain"],
                "pass": {},
                "answer": {},
            },
        )
        q["pass"][r["system"]] = bool(r["pass"])
        q["answer"][r["system"]] = None if r["answer"] is None else list(r["answer"][:3])
        if r["system"] == WHY:
            q["why_symptom"] = r.get("symptom")
        if "in_order" in r:
            q.setdefault("in_order", {})[r["system"]] = bool(r["in_order"])
    return out


def _failure_lines(rows: list[dict], texts_ok: bool) -> list[dict]:
    """One line per question and system that failed (why first), for error analysis."""
    passed: dict[tuple, list[str]] = {}
    for r in rows:
        if r["pass"]:
            passed.setdefault((r["case"], r["index"]), []).append(r["system"])
    out = []
    for system in SYSTEMS:
        for r in rows:
            if r["system"] != system or r["pass"]:
                continue
            line = {
                "dataset": DATASET,
                "system": system,
                "case": r["case"],
                "index": r["index"],
                "kind": r["kind"],
                "group": r["group"],
                "question": r["q"] if texts_ok else None,
                "effect": r["effect"],
                "cause": r["cause"],
                "chain": r["chain"],
                "abstained": r["abstained"],
                "answer": None if r["answer"] is None else list(r["answer"][:K]),
                "top3": [
                    {"id": x, "text": r["top_texts"][j] if texts_ok else None}
                    for j, x in enumerate((r["answer"] or [])[:3])
                ],
                "effect_text": r["effect_text"] if texts_ok else None,
                "cause_texts": r["cause_texts"] if texts_ok else None,
                "effect_found": r["effect_found"],
                "others_passed": sorted(passed.get((r["case"], r["index"]), [])),
            }
            if system == WHY:
                line.update(symptom=r.get("symptom"), reason=r.get("reason"), error=r.get("error"))
            if system == RECALL:
                line.update(recall_abstained=r.get("recall_abstained"), confidence=r.get("confidence"))
            out.append(line)
    return out


def _warm_up(ctx: BenchContext) -> None:
    """Load the embedder and check the schema with one untimed ingest, why and recall in a throwaway tenant."""
    ctx.embedder.encode(["warm up"])
    with ctx.memory_graph() as mg:
        mg.ingest(
            [
                {"id": "warm-up-1", "text": "The warm-up build failed at 10:00.", "at": "2024-01-01T10:00:00Z"},
                {
                    "id": "warm-up-2",
                    "text": "Turned out the warm-up build failed because the disk was full.",
                    "at": "2024-01-01T12:00:00Z",
                },
            ]
        )
        mg.why("why did the warm-up build fail?")
        mg.recall("warm-up build", k=K)


@suite("causes", title="Why-questions over plain-text notes: the stated cause first, chains, abstention")
def run(ctx: BenchContext) -> dict:
    """Why-questions over plain-text notes: does why return the note that states the cause, and abstain when none does?"""
    figures: dict[str, Any] = {"settings": {"k": K, "rrf_k": RRF_K, "quick": ctx.quick, "systems": SYSTEMS}}
    missing = causes_missing()
    if missing:
        ctx.log(f"{DATASET} skipped: {missing['rows'][0][0]} at {missing['rows'][0][1]}")
        figures[DATASET] = {"skipped": True, "looked_at": missing["rows"][0][1]}
        return {"tables": [missing], "figures": figures, "notes": [f"{DATASET}: skipped."]}
    path = _data_file(causes_path())
    cases = load_cases(path)
    notes: list[str] = []
    errors: list[str] = []
    problems = check_cases(cases)
    if problems:
        notes.append(f"{DATASET}: {len(problems)} format problem(s): " + "; ".join(problems[:10]))
    chosen = quick_selection(cases) if ctx.quick else cases
    quick = ctx.quick and len(chosen) < len(cases)
    ctx.log(f"{DATASET}: {len(chosen)} of {len(cases)} cases ({path})")
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
    with ctx.timed(DATASET):
        for n, case in enumerate(chosen, 1):
            r, info, e = _run_case(ctx, case)
            rows += r
            infos.append(info)
            errors += e
            if n % 10 == 0 or n == len(chosen):
                ctx.log(f"{DATASET}: {n}/{len(chosen)} cases")
    agg = aggregate(rows)
    tables = _tables(agg, quick, len(chosen))
    lat = {s: [r["latency_s"] for r in rows if r["system"] == s and "latency_s" in r] for s in (WHY, RECALL)}
    ingest = [i["ingest_s"] for i in infos if "ingest_s" in i]
    edges: dict[str, int] = {}
    for i in infos:
        for k, v in (i.get("edges") or {}).items():
            edges[k] = edges.get(k, 0) + int(v)
    edges["report.facts"] = sum(int(i.get("facts") or 0) for i in infos)
    cost = {
        "cases": len(infos),
        "memories": sum(i["memories"] for i in infos),
        "ingest_total_s": float(sum(ingest)),
        "ingest_per_case_p50_s": float(np.median(ingest)) if ingest else float("nan"),
        "why_ms": {"p50": percentile_ms(lat[WHY], 50), "p95": percentile_ms(lat[WHY], 95), "n": len(lat[WHY])},
        "recall_ms": {
            "p50": percentile_ms(lat[RECALL], 50),
            "p95": percentile_ms(lat[RECALL], 95),
            "n": len(lat[RECALL]),
        },
    }
    edge_keys = sorted(edges)
    tables.append(
        {
            "title": f"{DATASET}: cost and what ingest wrote",
            "columns": ["cases", "memories", "ingest total", "why p50 / p95", "recall p50 / p95", *edge_keys],
            "rows": [
                [
                    cost["cases"],
                    cost["memories"],
                    f"{cost['ingest_total_s']:.1f} s",
                    f"{cost['why_ms']['p50']:.0f} / {cost['why_ms']['p95']:.0f} ms",
                    f"{cost['recall_ms']['p50']:.0f} / {cost['recall_ms']['p95']:.0f} ms",
                    *[edges[k] for k in edge_keys],
                ]
            ],
            "note": "Wall time of MemoryGraph.ingest (defaults) per case into an empty tenant and of why / recall; "
            "local Neo4j, after an untimed warm-up. Edge columns: IngestReport.edges summed over the cases "
            "(inferred_caused_by = causes read from the words), report.facts = compiled facts.",
        }
    )
    recall_rows = [r for r in rows if r["system"] == RECALL]
    flag_abstain = sum(bool(r.get("recall_abstained")) for r in recall_rows if r["group"] == ABSTAIN_GROUP)
    flag_answerable = sum(bool(r.get("recall_abstained")) for r in recall_rows if r["answerable"])
    n_abstain = sum(1 for r in recall_rows if r["group"] == ABSTAIN_GROUP)
    n_answerable = sum(1 for r in recall_rows if r["answerable"])
    w = _cell(agg, WHY, "answerable")
    notes.append(
        f"{DATASET}: kgmem why passes {_pct(_cell(agg, WHY, 'all')['pass'], _cell(agg, WHY, 'all')['n'])} of all "
        f"questions, {_pct(w['pass'], w['n'])} of the answerable ones; abstains right on "
        f"{_pct(_cell(agg, WHY, ABSTAIN_GROUP)['pass'], _cell(agg, WHY, ABSTAIN_GROUP)['n'])} of the abstain "
        f"questions; why p50 {cost['why_ms']['p50']:.0f} ms"
        + ("; quick: a stable subset covering every kind" if quick else "")
        + ". recall's own abstained flag (not used in the scoring above, where recall is a ranked list): "
        f"{flag_abstain}/{n_abstain} abstain questions, {flag_answerable}/{n_answerable} answerable ones."
    )
    texts_ok = _texts_allowed(ctx.out_dir)
    failures = _failure_lines(rows, texts_ok)
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    fail_path = ctx.out_dir / FAILURES_FILE
    with fail_path.open("w") as fh:
        for line in failures:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    notes.append(
        f"Failures (one line per question and system that failed, why first): {fail_path} "
        f"({sum(1 for f in failures if f['system'] == WHY)} why lines, {len(failures)} in all)"
        + ("" if texts_ok else "; the output is inside the repository, so the data set's texts are left out (ids only)")
        + "."
    )
    figures[DATASET] = {
        "path": str(path),
        "cases_in_file": len(cases),
        "cases_run": [c["key"] for c in chosen],
        "questions": sum(len(c["questions"]) for c in chosen),
        "format_problems": problems,
        "counts": agg,
        "cost": cost,
        "edges": edges,
        "recall_abstained_flag": {"abstain": flag_abstain, "answerable": flag_answerable},
        "per_case": infos,
        "per_question": per_question(rows),
    }
    figures["failures_file"] = str(fail_path)
    return {"tables": tables, "figures": figures, "notes": notes, "errors": errors}
