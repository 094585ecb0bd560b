"""Snapshots of what recall's confidence step sees, so features can be tried and refitted without re-querying.

A snapshot is a plain dict: the question, the entity keys the question names, the channels that ran, the hits
(text, times, cosines, channel ranks, mentions, retirements) and every candidate read (text, mentions), plus the
label given by the source. Sources (``--source``, repeatable):

* ``fixtures`` — fixtures/recall (answerable with a relevant memory in the top 5 = 1, unanswerable = 0);
* ``wikiwhy`` — stored pairs' questions (1), absent pairs' questions (0), stored pairs' with the name swapped (0);
* ``updates`` — ../shared/datasets/updates-dev questions (1 when an expected memory is in the top 5) and the
  same questions with the subject swapped for another stream's subject (0);
* ``chats`` — template conversations (kgmem_bench.chatgen): answerable, attribution-swapped, topic-absent;
* ``locomo`` — the LoCoMo development half (evaluation only: CC BY-NC, never fitted for what ships).

Written as JSON lines outside the tree (default ``~/.cache/kgmem/confidence``): WikiWhy and LoCoMo texts must not
be published, so these files never go into the repository.

    python scripts/confidence_snapshots.py --source locomo --out ~/.cache/kgmem/confidence
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
SHARED = ROOT.parent / "shared" / "datasets"
_NAME = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")

_CAPTURED: list[dict[str, Any]] = []


def _install_capture() -> None:
    """Wrap recall's judge step so each call records its inputs (a development tool, never shipped)."""
    import kgmem.query.recall as rc

    original = rc.judge

    def judge(hits, q, got, plain, entity_keys, opts, model=None, *, where):  # noqa: ANN001
        top_plain = sorted(plain.items(), key=lambda kv: -kv[1])[:60]
        _CAPTURED.append(
            {
                "question": q.text,
                "named": list(q.keys.named),
                "entity_keys": list(entity_keys),
                "channels": list(got.found),
                "rrf_k": opts.rrf_k,
                "identifiers": sorted(q.identifiers),
                "plain": dict(top_plain),
                "details": {
                    i: {
                        "text": d.text,
                        "mentions": list(d.mentions),
                        "names": list(getattr(d, "names", ())),
                        "stream": getattr(d, "stream", None),
                        "similarity": getattr(d, "similarity", None),
                        "topic_similarity": getattr(d, "topic_similarity", None),
                        "context_similarity": getattr(d, "context_similarity", None),
                    }
                    for i, d in got.details.items()
                },
                "at": got.filters.at.isoformat() if got.filters.at else None,
            }
        )
        out = original(hits, q, got, plain, entity_keys, opts, model, where=where)
        _CAPTURED[-1]["hits"] = [
            {
                "id": h.id,
                "text": h.text,
                "at": h.at.isoformat() if h.at else None,
                "similarity": h.similarity,
                "context_similarity": h.context_similarity,
                "channels": h.channels,
                "score": h.score,
                "current": h.current,
                "retired": [float(r.get("confidence") or 1.0) for r in h.retired],
                "mentions": list(getattr(got.details.get(h.id), "mentions", ())),
                "stream": getattr(got.details.get(h.id), "stream", None),
                "subject": h.subject,
            }
            for h in hits
        ]
        _CAPTURED[-1]["old"] = {"features": out.features, "probability": out.probability}
        return out

    rc.judge = judge


def ask(g: Any, question: str, **kw: Any) -> tuple[Any, dict[str, Any]]:
    n = len(_CAPTURED)
    res = g.recall(question, k=10, **kw)
    snap = _CAPTURED[n] if len(_CAPTURED) > n else {"question": question, "hits": []}
    del _CAPTURED[n:]
    return res, snap


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def fixtures(base: Any, made: list[str]) -> list[dict]:
    from kgmem.validate import parse_time

    out = []
    records = _jsonl(ROOT / "fixtures" / "recall" / "memories.jsonl")
    questions = _jsonl(ROOT / "fixtures" / "recall" / "questions.jsonl")
    tenants = {}
    for name in sorted({r.get("tenant", "acme") for r in records}):
        tenants[name] = f"{base.tenant}-{name}"
        made.append(tenants[name])
        base.for_tenant(tenants[name]).ingest(
            [{k: v for k, v in r.items() if k != "tenant"} for r in records if r.get("tenant", "acme") == name]
        )
    for q in questions:
        g = base.for_tenant(tenants[q["tenant"]])
        res, snap = ask(g, q["query"], now=parse_time(q["now"]) if q.get("now") else None)
        top5 = {h.id for h in res.hits[:5]}
        if q["kind"] == "answerable":
            if not top5 & set(q["relevant"]):
                continue
            label, kind = 1, "answerable"
        else:
            label, kind = 0, q["kind"]
        out.append({"source": "fixtures/recall", "group": "fixtures", "label": label, "kind": kind, **snap})
    return out


def wikiwhy(base: Any, made: list[str], pairs: int = 600, seed: int = 7) -> list[dict]:
    folder = SHARED / "wikiwhy"
    cols = {
        c: json.loads((folder / f"{c}.json").read_text(encoding="utf-8"))[c] for c in ("cause", "effect", "question")
    }
    ids = sorted(set(cols["cause"]) & set(cols["effect"]) & set(cols["question"]), key=int)
    rng = random.Random(seed)
    rng.shuffle(ids)
    stored, absent = ids[:pairs], ids[pairs : pairs + pairs // 2]
    ww = f"{base.tenant}-wikiwhy"
    made.append(ww)
    g = base.for_tenant(ww)
    g.ingest(
        [{"id": f"c{i}", "text": cols["cause"][i][:4000], "at": "2024-01-01"} for i in stored]
        + [
            {"id": f"e{i}", "text": cols["effect"][i][:4000], "at": "2024-01-02", "caused_by": [f"c{i}"]}
            for i in stored
        ],
        infer_causes=False,
    )
    names = [m.group(1) for i in ids[: pairs * 2] for m in [_NAME.search(cols["question"][i])] if m]
    out = []
    for i in stored[: pairs // 2]:
        res, snap = ask(g, cols["question"][i])
        if {f"c{i}", f"e{i}"} & {h.id for h in res.hits[:5]}:
            out.append({"source": "wikiwhy/stored", "group": "wikiwhy", "label": 1, "kind": "answerable", **snap})
    for i in absent:
        _, snap = ask(g, cols["question"][i])
        out.append({"source": "wikiwhy/absent", "group": "wikiwhy", "label": 0, "kind": "absent", **snap})
    for i in stored[pairs // 2 :]:
        q = cols["question"][i]
        m = _NAME.search(q)
        if not m:
            continue
        other = rng.choice([n for n in names if n != m.group(1)])
        _, snap = ask(g, q[: m.start()] + other + q[m.end() :])
        out.append({"source": "wikiwhy/swapped-name", "group": "wikiwhy", "label": 0, "kind": "swapped", **snap})
    return out


def chats(base: Any, made: list[str], n: int = 60, seed: int = 11) -> list[dict]:
    from kgmem_bench import chatgen

    out = []
    for conv in chatgen.conversations(n, seed=seed):
        t = f"{base.tenant}-{conv['id']}"
        made.append(t)
        g = base.for_tenant(t)
        g.ingest(conv["records"])
        for q in conv["questions"]:
            res, snap = ask(g, q["question"], now=conv["now"])
            if q["label"] == 1 and not set(q["gold"]) & {h.id for h in res.hits[:5]}:
                continue
            out.append(
                {"source": f"chats/{q['kind']}", "group": conv["id"], "label": q["label"], "kind": q["kind"], **snap}
            )
    return out


def updates(base: Any, made: list[str]) -> list[dict]:
    """updates-dev questions whose current memory recall ranks in the top 5 (answerable)."""
    from kgmem_bench.updates import load_cases

    out = []
    for case in load_cases(SHARED / "updates-dev" / "updates-dev.json"):
        t = f"{base.tenant}-{case['key']}"
        made.append(t)
        g = base.for_tenant(t)
        g.ingest(case["memories"])
        for q in case["questions"]:
            res, snap = ask(g, q["q"], at=q.get("at"))
            if q["current"] not in {h.id for h in res.hits[:5]}:
                continue
            out.append({"source": "updates", "group": case["key"], "label": 1, "kind": "answerable", **snap})
    return out


def locomo(base: Any, made: list[str]) -> list[dict]:
    from kgmem_bench.conversations import ADVERSARIAL, load_conversations, locomo_path

    out = []
    for conv in load_conversations(locomo_path()):
        t = f"{base.tenant}-{conv['sample_id']}"
        made.append(t)
        g = base.for_tenant(t)
        g.ingest(conv["records"])
        print(f"locomo {conv['sample_id']}: {len(conv['questions'])} questions", file=sys.stderr, flush=True)
        for q in conv["questions"]:
            if not q["gold"] and q["category"] != ADVERSARIAL:
                continue
            res, snap = ask(g, q["question"], now=conv["now"])
            top5 = [h.id for h in res.hits[:5]]
            any5 = bool(set(q["gold"]) & set(top5))
            label = 0 if q["category"] == ADVERSARIAL else (1 if any5 else None)
            out.append(
                {
                    "source": "locomo",
                    "group": conv["sample_id"],
                    "label": label,
                    "kind": "adversarial" if q["category"] == ADVERSARIAL else f"cat{q['category']}",
                    "gold": q["gold"],
                    "any5": any5,
                    **snap,
                }
            )
    return out


SOURCES = {"fixtures": fixtures, "wikiwhy": wikiwhy, "chats": chats, "updates": updates, "locomo": locomo}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", action="append", choices=sorted(SOURCES), required=True)
    ap.add_argument("--out", default=os.path.expanduser("~/.cache/kgmem/confidence"))
    args = ap.parse_args()
    from kgmem import MemoryGraph

    _install_capture()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    for name in args.source:
        base = MemoryGraph.from_env(tenant=f"snap-{uuid.uuid4().hex[:8]}")
        made: list[str] = []
        try:
            rows = SOURCES[name](base, made)
        finally:
            for t in made:
                base.store.auto_commit("admin/delete_tenant", tenant=t)
            base.close()
        path = Path(args.out) / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
        print(f"{name}: {len(rows)} snapshots -> {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
