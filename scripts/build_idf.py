"""Build kgmem/data/idf.json: document frequencies of word stems for recall's meaning features.

Documents (licence-clean only): WikiWhy's causes, effects and questions (MIT; only counts of stems are kept,
never text), kgmem's own fixtures (every ``*.jsonl`` under fixtures/ with a ``text`` or ``query``), updates-dev
(CC0) and the template chats of ``kgmem_bench.chatgen``. Stems seen in fewer than ``--min-df`` documents are
left out (they weigh as unseen: the rarest). Never LoCoMo (CC BY-NC).

    python scripts/build_idf.py [--check]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
OUT = ROOT / "kgmem" / "data" / "idf.json"
SHARED = ROOT.parent / "shared" / "datasets"


def documents() -> tuple[list[str], list[str]]:
    docs: list[str] = []
    sources = []
    ww = SHARED / "wikiwhy"
    for col in ("cause", "effect", "question"):
        values = json.loads((ww / f"{col}.json").read_text(encoding="utf-8"))[col].values()
        docs.extend(values)
        sources.append(f"wikiwhy/{col} ({len(values)})")
    n = len(docs)
    for path in sorted((ROOT / "fixtures").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                text = row.get("text") or row.get("query")
                if isinstance(text, str):
                    docs.append(text)
    sources.append(f"fixtures ({len(docs) - n})")
    n = len(docs)
    for case in json.loads((SHARED / "updates-dev" / "updates-dev.json").read_text(encoding="utf-8")):
        docs.extend(m["text"] for m in case["memories"])
        docs.extend(q["q"] for q in case["questions"])
    sources.append(f"updates-dev ({len(docs) - n})")
    n = len(docs)
    from kgmem_bench import chatgen

    for conv in chatgen.conversations(40, seed=101):
        docs.extend(r["text"] for r in conv["records"])
    sources.append(f"chatgen seed 101 ({len(docs) - n})")
    return docs, sources


def build(min_df: int = 2) -> dict:
    from kgmem.query.meaning import stems

    docs, sources = documents()
    df: collections.Counter[str] = collections.Counter()
    for d in docs:
        df.update(stems(d))
    kept = {s: c for s, c in sorted(df.items()) if c >= min_df}
    return {"documents": len(docs), "min_df": min_df, "sources": sources, "df": kept}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-df", type=int, default=2)
    ap.add_argument("--check", action="store_true", help="exit 1 when kgmem/data/idf.json differs from a rebuild")
    args = ap.parse_args()
    table = build(args.min_df)
    text = json.dumps(table, separators=(",", ":"), sort_keys=True) + "\n"
    if args.check:
        same = OUT.is_file() and OUT.read_text(encoding="utf-8") == text
        print("idf.json is up to date" if same else "idf.json differs from a rebuild", file=sys.stderr)
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT}: {table['documents']} documents, {len(table['df'])} stems", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
