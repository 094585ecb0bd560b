"""Suite ``conversations``: long-term conversational memory on LoCoMo (the development half).

Each conversation is ingested as its own tenant, one memory per dialogue turn, exactly as the dataset's README
describes (id = the turn's ``dia_id``, text ``"Speaker: text [image: caption]"``, ``at`` = the session's date plus
the turn's index in seconds, ``stream`` = the session, the speaker as an entity). Every question with gold
evidence is asked with ``recall(question, k=10)``; per category (multi-hop, temporal, open-domain, single-hop,
adversarial) the suite reports frac@10 (the mean fraction of gold turns in the top 10), any@10 and any@5, the
abstention figures and recall latency, against flat vector (MiniLM cosine), flat BM25 and RRF(vector, BM25) over
the same turns in the same run.

The dataset is CC BY-NC and is not shipped with kgmem: it is read at run time from ``$KGMEM_LOCOMO`` (a folder
holding ``locomo5.json``), by default ``../shared/datasets/locomo-dev`` beside the checkout. Without it the suite
reports one "skipped" table and does not fail. No question or turn text is written into the results (only ids,
categories and numbers), so result files can be kept without copying the data.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgmem.calendar_names import MONTH_NUMBERS

from .devsets import DevSet
from .runner import BenchContext, suite

ROOT = Path(__file__).resolve().parents[2]
DATA_FILE = "locomo5.json"

CATEGORIES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ANSWERABLE = (1, 2, 3, 4)
ADVERSARIAL = 5
K = 10
QUICK_QUESTIONS = 60
RRF_DEPTH = 50
METRICS = ("frac@10", "any@10", "any@5")

KGMEM = "kgmem recall"
VECTOR = "flat vector"
BM25 = "flat BM25"
FUSED = "RRF(vector, BM25)"
SYSTEMS = (KGMEM, VECTOR, BM25, FUSED)

GOALS = {  # the goals for kgmem
    "overall_frac10": 0.78,
    "multihop_any10": 0.85,
    "temporal_frac10": 0.85,
    "empty": 0,
    "answered_with_gold_top5": 0.90,
    "adversarial_confident": 0.25,
}


# --------------------------------------------------------------------------- locating the data


LOCOMO = DevSet(
    "LoCoMo conversations",
    "KGMEM_LOCOMO",
    "locomo-dev",
    DATA_FILE,
    "LoCoMo, development half",
    keep_out="CC BY-NC: never copy it into the repository",
)
locomo_path = LOCOMO.path  # $KGMEM_LOCOMO (a folder, or the file itself), else ../shared/datasets/locomo-dev
_data_file = LOCOMO.data_file
locomo_missing = LOCOMO.missing


# --------------------------------------------------------------------------- parsing (pure)

_MONTHS = MONTH_NUMBERS  # every English month spelling -> 1..12 (kgmem.calendar_names)
_SESSION_TIME = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?\s*m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})\s*$", re.IGNORECASE
)


def parse_session_time(text: str) -> dt.datetime:
    """``"1:56 pm on 8 May, 2023"`` → ``datetime(2023, 5, 8, 13, 56, tzinfo=UTC)`` (no locale involved)."""
    m = _SESSION_TIME.match(text or "")
    if not m:
        raise ValueError(f"not a LoCoMo session time: {text!r} (expected like '1:56 pm on 8 May, 2023')")
    hour, minute, half, day, month, year = m.groups()
    month_l = month.lower()
    months = [n for name, n in _MONTHS.items() if name == month_l or (len(month_l) >= 3 and name.startswith(month_l))]
    hour_i = int(hour)
    if not months or not 1 <= hour_i <= 12:
        raise ValueError(f"not a LoCoMo session time: {text!r}")
    hour_i = hour_i % 12 + (12 if half.lower() == "p" else 0)
    return dt.datetime(int(year), months[0], int(day), hour_i, int(minute), tzinfo=dt.UTC)


def rfc3339(t: dt.datetime) -> str:
    """An aware datetime → ``"2023-05-08T13:56:03Z"`` (UTC)."""
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def turn_time(session_time: str, index: int) -> str:
    """The ``at`` of the turn at ``index`` (0-based) of a session: the session's date plus ``index`` seconds."""
    return rfc3339(parse_session_time(session_time) + dt.timedelta(seconds=index))


def turn_text(turn: dict) -> str:
    """``"Speaker: text"`` plus ``" [image: caption]"`` when the turn shared an image with a BLIP caption."""
    text = f"{turn['speaker']}: {turn.get('text', '')}".rstrip()
    caption = (turn.get("blip_caption") or "").strip()
    return f"{text} [image: {caption}]" if caption else text


_EVIDENCE = re.compile(r"D:?(\d+):(\d+(?::\d+)*)", re.IGNORECASE)


def normalize_evidence(raw: Iterable[Any], turn_ids: Iterable[str]) -> tuple[list[str], list[str], int]:
    """Gold evidence ids as turn ids of this conversation: ``(kept, dropped, repaired)``.

    Spaces are stripped; an entry holding several ids (``"D8:6; D9:17"``) is split; a malformed id is read
    the way it was meant when that is unambiguous (``"D:11:26"`` → ``D11:26``, ``"D1:3:5"`` → ``D1:3``, ``D1:5``,
    ``"D3:05"`` → ``D3:5``). Only ids that are turns of the conversation are kept (in order, once each);
    ``dropped`` lists the pieces that are not (``"D"``, a turn past the end of its session); ``repaired`` counts
    the raw entries that were not a turn id as written but gave at least one.
    """
    turns = set(turn_ids)
    kept: list[str] = []
    dropped: list[str] = []
    repaired = 0
    for entry in raw or []:
        if not isinstance(entry, str):
            dropped.append(str(entry))
            continue
        if entry in turns:
            if entry not in kept:
                kept.append(entry)
            continue
        found = False
        for piece in re.split(r"[;,\s]+", entry.strip()):
            if not piece:
                continue
            m = _EVIDENCE.fullmatch(piece)
            if not m:
                dropped.append(piece)
                continue
            session = int(m.group(1))
            for t in m.group(2).split(":"):
                ident = f"D{session}:{int(t)}"
                if ident in turns:
                    found = True
                    if ident not in kept:
                        kept.append(ident)
                else:
                    dropped.append(ident if ident == piece else f"{piece} ({ident})")
        repaired += found
    return kept, dropped, repaired


def _session_numbers(conversation: dict) -> list[int]:
    out = []
    for key, value in conversation.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(value, list) and value:
            out.append(int(m.group(1)))
    return sorted(out)


def load_conversations(path: str | os.PathLike[str]) -> list[dict]:
    """Read ``locomo5.json`` (``path``: the file or the folder holding it) into one dict per conversation.

    Each: ``sample_id``, ``speakers``, ``records`` (the memories to ingest, in order), ``turn_ids``, ``sessions``,
    ``last_at`` (RFC 3339, the last session's date), ``now`` (one day after it: when the questions are asked),
    ``questions`` (every qa item: ``index``, ``question``, ``category``, ``gold`` (normalised evidence ids),
    ``raw_evidence``, ``dropped``, ``repaired``) and the counts ``dropped_evidence`` / ``repaired_evidence``.
    Session dates without a session (conv-26 lists dates for sessions 20–35 it does not have) are ignored.
    """
    samples = json.loads(_data_file(path).read_text())
    out = []
    for sample in samples:
        sid = str(sample["sample_id"])
        conv = sample["conversation"]
        records: list[dict] = []
        starts: list[dt.datetime] = []
        numbers = _session_numbers(conv)
        for n in numbers:
            when = conv.get(f"session_{n}_date_time")
            if not when:
                raise ValueError(f"{sid}: session_{n} has no session_{n}_date_time")
            start = parse_session_time(when)
            starts.append(start)
            for i, turn in enumerate(conv[f"session_{n}"]):
                records.append(
                    {
                        "id": str(turn["dia_id"]).strip(),
                        "text": turn_text(turn),
                        "at": rfc3339(start + dt.timedelta(seconds=i)),
                        "stream": f"{sid}/session_{n}",
                        "entities": [turn["speaker"]],
                    }
                )
        turn_ids = [r["id"] for r in records]
        questions = []
        dropped_total = repaired_total = 0
        for qi, qa in enumerate(sample.get("qa", [])):
            raw = list(qa.get("evidence") or [])
            gold, dropped, repaired = normalize_evidence(raw, turn_ids)
            dropped_total += len(dropped)
            repaired_total += repaired
            questions.append(
                {
                    "index": qi,
                    "question": qa["question"],
                    "category": int(qa["category"]),
                    "gold": gold,
                    "raw_evidence": raw,
                    "dropped": dropped,
                    "repaired": repaired,
                }
            )
        last = max(starts) if starts else None
        out.append(
            {
                "sample_id": sid,
                "speakers": [conv.get("speaker_a"), conv.get("speaker_b")],
                "records": records,
                "turn_ids": turn_ids,
                "sessions": len(numbers),
                "last_at": rfc3339(last) if last else None,
                "now": rfc3339(last + dt.timedelta(days=1)) if last else None,
                "questions": questions,
                "dropped_evidence": dropped_total,
                "repaired_evidence": repaired_total,
            }
        )
    return out


# --------------------------------------------------------------------------- scoring (pure)


def score(ranked_ids: Sequence[str], gold_ids: Iterable[str]) -> dict:
    """One question: ``frac@10`` (fraction of the gold ids in the top 10), ``any@10`` and ``any@5`` (1.0 when at
    least one gold id is there), ``frac@5`` and ``first`` (1-based rank of the best gold id, None if none in
    the ranking)."""
    gold = list(dict.fromkeys(gold_ids))
    if not gold:
        raise ValueError("score needs at least one gold id")
    ranked = list(ranked_ids)
    top10, top5 = set(ranked[:10]), set(ranked[:5])
    first = next((i + 1 for i, r in enumerate(ranked) if r in set(gold)), None)
    return {
        "frac@10": sum(g in top10 for g in gold) / len(gold),
        "any@10": float(any(g in top10 for g in gold)),
        "any@5": float(any(g in top5 for g in gold)),
        "frac@5": sum(g in top5 for g in gold) / len(gold),
        "first": first,
    }


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def aggregate(rows: Sequence[dict]) -> dict:
    """Per-question rows (``category``, ``frac@10``, ``any@10``, ``any@5`` and, for kgmem, ``empty`` and
    ``abstained``) → ``{"by_category": {name: {...}}, "overall": {...}}``; overall = categories 1–4 only."""
    out: dict[str, Any] = {"by_category": {}}
    for cat, name in CATEGORIES.items():
        rs = [r for r in rows if r["category"] == cat]
        out["by_category"][name] = {"n": len(rs), **{m: _mean([r[m] for r in rs]) for m in METRICS}}
    ans = [r for r in rows if r["category"] in ANSWERABLE]
    adv = [r for r in rows if r["category"] == ADVERSARIAL]
    overall: dict[str, Any] = {
        "n": len(ans),
        **{m: _mean([r[m] for r in ans]) for m in METRICS},
        "n_adversarial": len(adv),
        "empty": sum(bool(r.get("empty")) for r in rows),
        "empty_answerable": sum(bool(r.get("empty")) for r in ans),
    }
    if rows and all("abstained" in r for r in rows):
        gold5 = [r for r in ans if r["any@5"]]
        overall.update(
            {
                "abstained_answerable": sum(r["abstained"] for r in ans),
                "answerable": len(ans),
                "gold_top5_answerable": len(gold5),
                "gold_top5_answered": sum(not r["abstained"] for r in gold5),
                "adversarial_answered": sum(not r["abstained"] for r in adv),
            }
        )
    out["overall"] = overall
    return out


def _ratio(n: int, d: int) -> float:
    return n / d if d else float("nan")


def _f2(v: float | None) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f} % ({n}/{d})" if d else "—"


# --------------------------------------------------------------------------- baselines

# question words and auxiliaries dropped from a BM25 query on top of the English stop words
QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how did does do was were is are has have had "
    "would could should can will".split()
)
_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def query_tokens(question: str) -> list[str]:
    """BM25 query terms: lowercase word tokens without English stop words and question words (all tokens when
    nothing would be left)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    toks = _tokens(question)
    kept = [t for t in toks if t not in ENGLISH_STOP_WORDS and t not in QUESTION_WORDS]
    return kept or toks


class Baselines:
    """Flat vector (cosine over normalised MiniLM vectors), BM25Okapi and RRF of the two over one conversation."""

    def __init__(self, embedder: Any, records: list[dict]):
        from rank_bm25 import BM25Okapi

        self.embedder = embedder
        self.ids = [r["id"] for r in records]
        self.matrix = self._unit(embedder.encode([r["text"] for r in records]))
        self.bm25 = BM25Okapi([_tokens(r["text"]) for r in records])

    @staticmethod
    def _unit(m: np.ndarray) -> np.ndarray:
        m = np.asarray(m, dtype=np.float32)
        norms = np.linalg.norm(m, axis=-1, keepdims=True)
        return m / np.where(norms == 0, 1.0, norms)

    def rank_all(self, questions: Sequence[str]) -> dict[str, list[list[str]]]:
        from kgmem.query.fusion import rrf

        qv = self._unit(self.embedder.encode(list(questions)))
        out: dict[str, list[list[str]]] = {VECTOR: [], BM25: [], FUSED: []}
        for i, q in enumerate(questions):
            v = [self.ids[j] for j in np.argsort(-(self.matrix @ qv[i]), kind="stable")]
            b = [self.ids[j] for j in np.argsort(-self.bm25.get_scores(query_tokens(q)), kind="stable")]
            out[VECTOR].append(v[:K])
            out[BM25].append(b[:K])
            out[FUSED].append([f.id for f in rrf({"vector": v[:RRF_DEPTH], "bm25": b[:RRF_DEPTH]})][:K])
        return out


# --------------------------------------------------------------------------- the run


def _run_conversation(
    ctx: BenchContext, base: Any, conv: dict, questions: list[dict], notes: list[str], tenants: list[str]
) -> tuple[dict[str, list[dict]], dict]:
    sid = conv["sample_id"]
    tenant = ctx.new_tenant()
    tenants.append(tenant)
    ctx.tenants.append(tenant)
    mg = base.for_tenant(tenant)
    t0 = time.perf_counter()
    with ctx.timed("ingest"):
        report = mg.ingest(conv["records"])
    ingest_s = time.perf_counter() - t0
    rep = report.to_dict()
    if report.errors:
        notes.append(f"**{sid}: ingest reported {len(report.errors)} error(s)** (first: {report.errors[0]}).")
    inferred = rep.get("edges", {}).get("inferred_supersedes", 0)
    ctx.log(
        f"{sid}: ingested {len(conv['records'])} turns in {ingest_s:.0f} s (created {report.created}, "
        f"errors {len(report.errors)}, inferred supersessions {inferred}); {len(questions)} questions"
    )
    # a chat states few changes of state: each inferred link retires a turn from present-tense answers
    notes.append(f"{sid}: {inferred} SUPERSEDES links inferred from the plain text of {len(conv['records'])} turns.")
    rows: dict[str, list[dict]] = {s: [] for s in SYSTEMS}
    errors = 0
    with ctx.timed("recall"):
        for q in questions:
            t1 = time.perf_counter()
            try:
                res = mg.recall(q["question"], k=K, now=conv["now"])
                lat = time.perf_counter() - t1
                ids, abstained, reason = [h.id for h in res.hits], bool(res.abstained), res.reason
                feats, conf = getattr(res, "features", None), getattr(res, "confidence", None)
                err = None
            except Exception as exc:  # recorded, never fatal: the other questions still count
                lat = time.perf_counter() - t1
                ids, abstained, reason, err = [], True, None, f"{type(exc).__name__}: {exc}"
                feats, conf = None, None
                errors += 1
            s = score(ids, q["gold"])
            rows[KGMEM].append(
                {
                    "conversation": sid,
                    "index": q["index"],
                    "category": q["category"],
                    "gold": q["gold"],
                    "top10": ids[:K],
                    **s,
                    "empty": not ids,
                    "abstained": abstained,
                    "reason": reason,
                    "latency_ms": lat * 1000.0,
                    "features": feats,
                    "confidence": conf,
                    **({"error": err} if err else {}),
                }
            )
    if errors:
        notes.append(
            f"**{sid}: recall raised on {errors} question(s)**; they count as empty and abstained "
            "(the error is in figures.kgmem_questions)."
        )
    with ctx.timed("baselines"):
        flat = Baselines(ctx.embedder, conv["records"])
        ranked = flat.rank_all([q["question"] for q in questions])
    for system, lists in ranked.items():
        for q, ids in zip(questions, lists):
            rows[system].append(
                {
                    "conversation": sid,
                    "index": q["index"],
                    "category": q["category"],
                    "top10": ids,
                    **score(ids, q["gold"]),
                    "empty": not ids,
                }
            )
    info = {
        "turns": len(conv["records"]),
        "sessions": conv["sessions"],
        "questions": len(questions),
        "last_session": conv["last_at"],
        "now": conv["now"],
        "ingest_s": ingest_s,
        "ingest": {k: v for k, v in rep.items() if k != "ids"},
        "recall_errors": errors,
    }
    return rows, info


def _tables(agg: dict[str, dict], by_conv: dict[str, dict[str, dict]], lat: dict, quick: bool) -> list[dict]:
    cats = list(CATEGORIES.values())
    t1_rows = []
    for system in SYSTEMS:
        a = agg[system]
        for cat in cats:
            c = a["by_category"][cat]
            t1_rows.append([system, cat, c["n"], _f2(c["frac@10"]), _f2(c["any@10"]), _f2(c["any@5"])])
        o = a["overall"]
        t1_rows.append([system, "overall (1–4)", o["n"], _f2(o["frac@10"]), _f2(o["any@10"]), _f2(o["any@5"])])
    table1 = {
        "title": "LoCoMo recall per question category (top 10 of each system)",
        "columns": ["system", "category", "questions", "frac@10", "any@10", "any@5"],
        "rows": t1_rows,
        "note": "frac@10: mean fraction of a question's gold turns in the top 10; any@k: share of questions "
        "with at least one gold turn in the top k. Adversarial questions (false premise) have "
        "evidence too and are scored here, but are not part of overall.",
    }

    k = agg[KGMEM]["overall"]

    def per_system(fn):
        return [fn(agg[s]) for s in SYSTEMS]

    def met(ok: bool | None) -> str:
        return "—" if ok is None else ("yes" if ok else "no")

    ov = [a["overall"]["frac@10"] for a in (agg[s] for s in SYSTEMS)]
    mh = [a["by_category"]["multi-hop"]["any@10"] for a in (agg[s] for s in SYSTEMS)]
    tp = [a["by_category"]["temporal"]["frac@10"] for a in (agg[s] for s in SYSTEMS)]
    gold5 = _ratio(k["gold_top5_answered"], k["gold_top5_answerable"])
    adv = _ratio(k["adversarial_answered"], k["n_adversarial"])
    rows2 = [
        [
            "overall frac@10 (categories 1–4)",
            f"≥ {GOALS['overall_frac10']:.2f}",
            _f2(ov[0]),
            met(ov[0] >= GOALS["overall_frac10"]),
            *[_f2(v) for v in ov[1:]],
        ],
        [
            "multi-hop any@10",
            f"≥ {GOALS['multihop_any10']:.2f}",
            _f2(mh[0]),
            met(mh[0] >= GOALS["multihop_any10"]),
            *[_f2(v) for v in mh[1:]],
        ],
        [
            "temporal frac@10",
            f"≥ {GOALS['temporal_frac10']:.2f}",
            _f2(tp[0]),
            met(tp[0] >= GOALS["temporal_frac10"]),
            *[_f2(v) for v in tp[1:]],
        ],
        [
            "empty results (recall returned no hits)",
            "0",
            f"{k['empty']} ({k['empty_answerable']} answerable)",
            met(k["empty"] == GOALS["empty"]),
            *per_system(lambda a: str(a["overall"]["empty"]))[1:],
        ],
        ["abstained on answerable (1–4)", "—", _pct(k["abstained_answerable"], k["answerable"]), "—", "—", "—", "—"],
        [
            "answered when a gold turn is in the top 5 (answerable)",
            f"≥ {100 * GOALS['answered_with_gold_top5']:.0f} %",
            _pct(k["gold_top5_answered"], k["gold_top5_answerable"]),
            met(None if math.isnan(gold5) else gold5 >= GOALS["answered_with_gold_top5"]),
            "—",
            "—",
            "—",
        ],
        [
            "adversarial answered confidently (not abstained)",
            f"≤ {100 * GOALS['adversarial_confident']:.0f} %",
            _pct(k["adversarial_answered"], k["n_adversarial"]),
            met(None if math.isnan(adv) else adv <= GOALS["adversarial_confident"]),
            *per_system(lambda a: _pct(a["overall"]["n_adversarial"], a["overall"]["n_adversarial"]))[1:],
        ],
        ["recall latency p50 / p95", "—", f"{lat['p50_ms']:.0f} / {lat['p95_ms']:.0f} ms", "—", "—", "—", "—"],
    ]
    table2 = {
        "title": "LoCoMo: overall against the goals",
        "columns": ["measure", "goal (kgmem)", KGMEM, "met", VECTOR, BM25, FUSED],
        "rows": rows2,
        "note": "Baselines never abstain, so they answer every adversarial question confidently. Latency is "
        "wall time of MemoryGraph.recall (perf_counter) on this machine, Neo4j local."
        + (" Quick run: one conversation, its first 60 questions — not comparable with the goals." if quick else ""),
    }

    rows3 = []
    for sid, systems in by_conv.items():
        for system in SYSTEMS:
            a = systems[system]
            rows3.append(
                [
                    sid,
                    system,
                    a["overall"]["n"],
                    _f2(a["overall"]["frac@10"]),
                    *[_f2(a["by_category"][c]["frac@10"]) for c in cats],
                ]
            )
    table3 = {
        "title": "LoCoMo frac@10 by conversation",
        "columns": ["conversation", "system", "questions (1–4)", "overall frac@10", *cats],
        "rows": rows3,
        "note": "One row per conversation and system, so the spread between conversations shows.",
    }
    return [table1, table2, table3]


def _plots(agg: dict[str, dict], quick: bool) -> list[dict]:
    cats = list(CATEGORIES.values())
    plots = []
    for metric, file in (("frac@10", "conversations_frac10.png"), ("any@10", "conversations_any10.png")):
        plots.append(
            {
                "file": file,
                "kind": "bar",
                "title": f"LoCoMo {metric} per question category" + (" (quick)" if quick else ""),
                "xlabel": "category",
                "ylabel": metric,
                "categories": cats,
                "series": [{"label": s, "y": [agg[s]["by_category"][c][metric] for c in cats]} for s in SYSTEMS],
                "ylim": [0, 1.05],
                "annotate": True,
                "annotate_fmt": "{:.2f}",
                "size": (9, 4.8),
            }
        )
    return plots


def confidence_folds(kgmem_rows: list[dict]) -> dict:
    """The confidence on conversations it never saw: labelled questions are the answerable ones with a gold turn
    in the top 5 (1) and the adversarial ones (0, category 5: the premise is false for the chat).

    * ``shipped`` — the shipped model (kgmem/data/confidence.json, fitted without LoCoMo) on every conversation:
      each is held out by construction;
    * ``folds`` — leave one conversation out: the same recipe (``kgmem_bench.confidence_fit``) refitted on the
      shippable training rows (bench/confidence_training.json, written by scripts/fit_confidence.py) plus the
      other conversations, applied to the held-out one.

    Each with the AUC, the share of each kind answered at the threshold, the expected calibration error and a
    reliability table; and every feature's AUC alone over all conversations (chosen features or not)."""
    from sklearn.metrics import roc_auc_score

    from kgmem.query import confidence

    from .confidence_fit import THRESHOLD, ece, fit, probability, reliability

    shipped = confidence.shipped()
    if shipped is None:
        return {}
    model = shipped.to_dict()
    features = model["features"]
    train_file = ROOT / "bench" / "confidence_training.json"
    saved = json.loads(train_file.read_text()) if train_file.is_file() else {"features": features, "rows": []}
    base = [
        {
            "source": r["source"],
            "group": r.get("group"),
            "label": r["label"],
            "features": dict(zip(saved["features"], r["x"])),
        }
        for r in saved["rows"]
    ]
    data = []
    for r in kgmem_rows:
        if r.get("features") is None:
            continue
        if r["category"] == ADVERSARIAL:
            y = 0
        elif r["any@5"] > 0:
            y = 1
        else:
            continue
        data.append({"source": "locomo", "group": r["conversation"], "label": y, "features": r["features"]})
    if not data:
        return {}
    ys = np.array([d["label"] for d in data])
    convs = sorted({d["group"] for d in data})

    def measures(p: np.ndarray, y: np.ndarray) -> dict:
        return {
            "answerable_answered": float((p[y == 1] >= THRESHOLD).mean()) if (y == 1).any() else None,
            "adversarial_answered": float((p[y == 0] >= THRESHOLD).mean()) if (y == 0).any() else None,
            "auc": float(roc_auc_score(y, p)) if len(set(y)) == 2 else None,
            "ece": ece(p, y),
            "n_pos": int((y == 1).sum()),
            "n_neg": int((y == 0).sum()),
        }

    p_ship = probability(model, data)
    shipped_by = {
        c: measures(p_ship[[d["group"] == c for d in data]], ys[[d["group"] == c for d in data]]) for c in convs
    }
    p_loco = np.zeros(len(data))
    folds = {}
    for held in convs:
        te = np.array([d["group"] == held for d in data])
        train = base + [d for d, t in zip(data, te) if not t]
        if len({d["label"] for d in train}) < 2:
            continue
        refit = fit(train, features)
        p_loco[te] = probability(refit, [d for d, t in zip(data, te) if t])
        folds[held] = measures(p_loco[te], ys[te])
    aucs = {}
    for f in confidence.FEATURES:
        vals = np.array([d["features"].get(f, 0.0) for d in data])
        aucs[f] = float(roc_auc_score(ys, vals)) if len(set(ys)) == 2 and len(set(vals)) > 1 else None

    def mean(by: dict, key: str) -> float | None:
        vals = [f[key] for f in by.values() if f[key] is not None]
        return float(np.mean(vals)) if vals else None

    keys = ("answerable_answered", "adversarial_answered", "auc", "ece")
    return {
        "threshold": THRESHOLD,
        "shipped": {
            "by_conversation": shipped_by,
            "mean": {k: mean(shipped_by, k) for k in keys},
            "pooled": measures(p_ship, ys),
            "reliability": reliability(p_ship, ys),
            "data_version": model["data_version"],
        },
        "folds": folds,
        "mean": {k: mean(folds, k) for k in keys},
        "pooled": measures(p_loco, ys) if folds else None,
        "reliability": reliability(p_loco, ys) if folds else None,
        "feature_auc": aucs,
        "model_features": list(features),
        "training_rows": len(base),
    }


def confidence_tables(conf: dict) -> tuple[list[dict], list[dict]]:
    """The confidence's tables (per held-out conversation, shipped and refitted) and its reliability plot."""
    pct = lambda v: "—" if v is None else f"{100 * v:.0f} %"  # noqa: E731
    num = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731

    def row(name: str, f: dict) -> list[str]:
        return [name, pct(f["answerable_answered"]), pct(f["adversarial_answered"]), num(f["auc"]), num(f["ece"])]

    columns = ["held-out conversation", "answerable (gold in top 5) answered", "adversarial answered", "AUC", "ECE"]
    sh = conf["shipped"]
    tables = [
        {
            "title": f"Confidence of the shipped model (never fitted on LoCoMo), threshold {conf['threshold']}",
            "columns": columns,
            "rows": [row(c, f) for c, f in sh["by_conversation"].items()]
            + [row("mean of conversations", sh["mean"]), row("all questions", sh["pooled"])],
            "note": f"kgmem/data/confidence.json ({sh['data_version']}): fitted on fixtures, updates-dev and "
            "template chats only. Goals (issue 22): AUC >= 0.80, >= 90 % answered, <= 25 % adversarial answered, "
            "ECE <= 0.05. Feature AUCs alone over all conversations (shipped features starred): "
            + ", ".join(
                f"{k}{'*' if k in conf['model_features'] else ''} {v:.2f}"
                for k, v in conf["feature_auc"].items()
                if v is not None
            )
            + ".",
        }
    ]
    if conf["folds"]:
        tables.append(
            {
                "title": "Confidence refitted with the other conversations (leave one conversation out)",
                "columns": columns,
                "rows": [row(c, f) for c, f in conf["folds"].items()]
                + [row("mean of folds", conf["mean"]), row("all questions (held-out folds)", conf["pooled"])],
                "note": "The same recipe (kgmem_bench.confidence_fit) on the shippable rows plus the other four "
                "conversations; only the held-out conversation is scored.",
            }
        )
    rel = sh["reliability"]
    plots = [
        {
            "file": "confidence_reliability.png",
            "kind": "line",
            "title": "Reliability of the confidence on LoCoMo (held-out conversations)",
            "xlabel": "predicted probability (bins of 0.1, at their centres)",
            "ylabel": "observed share answerable",
            "x": [round((b["lo"] + b["hi"]) / 2, 2) for b in rel],
            "series": [
                {"label": "shipped model", "y": [b["observed"] for b in rel]},
                *(
                    [{"label": "refitted, leave one out", "y": [b["observed"] for b in conf["reliability"]]}]
                    if conf.get("reliability")
                    else []
                ),
                {
                    "label": "perfectly calibrated",
                    "y": [round((b["lo"] + b["hi"]) / 2, 2) for b in rel],
                    "linestyle": "--",
                },
            ],
            "ylim": [0, 1.05],
        }
    ]
    return tables, plots


@suite("conversations", title="Long conversations (LoCoMo): recall per question category against flat baselines")
def run(ctx: BenchContext) -> dict:
    """LoCoMo (development half): kgmem recall vs flat vector, BM25 and RRF per question category."""
    missing = locomo_missing()
    if missing:
        ctx.log(f"skipped: {missing['rows'][0][0]} at {missing['rows'][0][1]}")
        return {
            "tables": [missing],
            "figures": {"skipped": True, "looked_at": missing["rows"][0][1]},
            "notes": ["Skipped: the LoCoMo data is not shipped with kgmem (CC BY-NC)."],
        }
    path = _data_file(locomo_path())
    with ctx.timed("load"):
        convs = load_conversations(path)
    all_questions = sum(len(c["questions"]) for c in convs)
    dropped_all = sum(c["dropped_evidence"] for c in convs)
    repaired_all = sum(c["repaired_evidence"] for c in convs)
    dropped_list = [
        (c["sample_id"], q["index"], q["raw_evidence"], q["dropped"], q["gold"])
        for c in convs
        for q in c["questions"]
        if q["dropped"] or q["repaired"]
    ]
    if ctx.quick:
        convs = convs[:1]
    notes: list[str] = []
    tenants: list[str] = []
    rows: dict[str, list[dict]] = {s: [] for s in SYSTEMS}
    conv_info: dict[str, dict] = {}
    no_evidence = 0
    with ctx.memory_graph() as base:
        try:
            for conv in convs:
                qs = conv["questions"][:QUICK_QUESTIONS] if ctx.quick else conv["questions"]
                asked = [q for q in qs if q["gold"]]
                no_evidence += len(qs) - len(asked)
                r, info = _run_conversation(ctx, base, conv, asked, notes, tenants)
                info["skipped_no_evidence"] = len(qs) - len(asked)
                conv_info[conv["sample_id"]] = info
                for s in SYSTEMS:
                    rows[s] += r[s]
        finally:
            for t in tenants:
                ctx.delete_tenant(t)
    agg = {s: aggregate(rows[s]) for s in SYSTEMS}
    by_conv = {
        sid: {s: aggregate([r for r in rows[s] if r["conversation"] == sid]) for s in SYSTEMS} for sid in conv_info
    }
    lats = [r["latency_ms"] for r in rows[KGMEM]]
    lat = {
        "p50_ms": float(np.percentile(lats, 50)) if lats else float("nan"),
        "p95_ms": float(np.percentile(lats, 95)) if lats else float("nan"),
        "mean_ms": _mean(lats),
        "max_ms": float(max(lats)) if lats else float("nan"),
    }
    asked_n = len(rows[KGMEM])
    absent = [name for name, c in agg[KGMEM]["by_category"].items() if not c["n"]]
    notes = [
        f"LoCoMo development half ({path}): {len(convs)} conversation(s), "
        f"{sum(i['turns'] for i in conv_info.values()):,} turns ingested, {asked_n} questions asked"
        + (
            f" (quick: the first conversation and its first {QUICK_QUESTIONS} questions; no "
            + ", ".join(absent)
            + " question among them)"
            if ctx.quick and absent
            else f" (quick: the first conversation and its first {QUICK_QUESTIONS} questions)"
            if ctx.quick
            else ""
        )
        + ".",
        'Each conversation is its own tenant; one memory per turn (id = dia_id, text "Speaker: text [image: '
        "caption]\", at = the session's date plus the turn's index in seconds, stream = the session, the speaker "
        "as an entity). recall(question, k=10) is asked with now = one day after the conversation's last session: "
        "the questions are asked after the chat ended, so time phrases resolve against that day.",
        f"Evidence ids in the whole file ({all_questions} questions): {dropped_all} dropped as not a turn of the "
        f"conversation, {repaired_all} malformed entries repaired (split or re-read); questions left without "
        f"evidence are not asked ({no_evidence} in this run). Affected: "
        + "; ".join(
            f"{sid} q{qi} {raw} → kept {g}" + (f", dropped {d}" if d else "") for sid, qi, raw, d, g in dropped_list
        )
        + ".",
        "Baselines over the same turn texts in the same run: flat vector (all-MiniLM-L6-v2 cosine), BM25Okapi "
        "(rank-bm25; lowercase word tokens, stop words and question words dropped from the query), "
        f"RRF(vector, BM25) with kgmem.query.fusion.rrf over the top {RRF_DEPTH} of each.",
        "No question or turn text is stored in the results (CC BY-NC): per-question rows carry the sample id, "
        "the qa index, the category and turn ids only.",
        *notes,
    ]
    figures = {
        "dataset": {
            "path": str(path),
            "conversations": len(convs),
            "questions_in_file": all_questions,
            "asked": asked_n,
            "skipped_no_evidence": no_evidence,
            "dropped_evidence_ids": dropped_all,
            "repaired_evidence_entries": repaired_all,
            "evidence_changes": [
                {"conversation": sid, "index": qi, "raw": raw, "kept": g, "dropped": d}
                for sid, qi, raw, d, g in dropped_list
            ],
        },
        "settings": {
            "k": K,
            "rrf_depth": RRF_DEPTH,
            "quick": ctx.quick,
            "quick_questions": QUICK_QUESTIONS if ctx.quick else None,
            "goals": GOALS,
            "categories": CATEGORIES,
        },
        "systems": {s: {"all": agg[s], "by_conversation": {sid: by_conv[sid][s] for sid in by_conv}} for s in SYSTEMS},
        "latency_ms": lat,
        "conversations": conv_info,
        "kgmem_questions": [
            {
                k: r[k]
                for k in (
                    "conversation",
                    "index",
                    "category",
                    "gold",
                    "top10",
                    "frac@10",
                    "any@10",
                    "any@5",
                    "first",
                    "empty",
                    "abstained",
                    "reason",
                    "latency_ms",
                    "error",
                    "features",
                    "confidence",
                )
                if k in r
            }
            for r in rows[KGMEM]
        ],
        "baseline_questions": {
            s: [
                {
                    "conversation": r["conversation"],
                    "index": r["index"],
                    "top10": r["top10"],
                    "frac@10": r["frac@10"],
                    "any@5": r["any@5"],
                }
                for r in rows[s]
            ]
            for s in SYSTEMS
            if s != KGMEM
        },
    }
    tables = _tables(agg, by_conv, lat, ctx.quick)
    plots = _plots(agg, ctx.quick)
    if not ctx.quick and any(r.get("features") for r in rows[KGMEM]):
        conf = confidence_folds(rows[KGMEM])
        if conf:
            figures["confidence_folds"] = conf
            more_tables, more_plots = confidence_tables(conf)
            tables += more_tables
            plots += more_plots
    return {"tables": tables, "figures": figures, "plots": plots, "notes": notes}
