"""The demo (``kgmem demo``, the main job of ``./dev demo``): load a small story into tenant ``demo`` and ask
it the questions a flat vector store gets wrong — why (a 4-hop causal chain), what holds now, as of a
date, history, an exact error code, a decision, an entity, and two questions it should decline.
Every answer comes from Neo4j through the public API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

from .api import MemoryGraph
from .results import Fact, iso

# The story's single source is fixtures/demo/demo.jsonl; the wheel build copies it to kgmem/data (setup.py).
_PACKAGED = Path(__file__).resolve().parent / "data" / "demo.jsonl"
_CHECKOUT = Path(__file__).resolve().parents[1] / "fixtures" / "demo" / "demo.jsonl"
DEMO_FILE = _PACKAGED if _PACKAGED.is_file() else _CHECKOUT


def _fact(f: Fact | None) -> str:
    if f is None:
        return "nothing recorded"
    return f"{'' if f.polarity else 'NOT '}{f.object}   [{f.id}, since {iso(f.valid_from)}]"


def run(mg: MemoryGraph, echo: Callable[[str], None] = click.echo) -> dict[str, Any]:
    """Ingest the demo story (idempotent) and print the answers. Returns them for tests."""
    if not DEMO_FILE.exists():
        raise FileNotFoundError(
            f"demo data not found at {DEMO_FILE} (reinstall kgmem from its wheel, or run from a checkout)"
        )
    conn = mg.connection
    echo(f"kgmem demo — Neo4j at {conn.uri} ({conn.origin}), tenant '{mg.tenant}'")
    server = mg.server_components()
    echo(f"server: {', '.join(c['name'] + ' ' + c['version'] for c in server)}")
    import json

    records = [json.loads(line) for line in DEMO_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    for rec in records:  # the story goes into this graph's tenant, whatever the file says
        rec["tenant"] = mg.tenant
    report = mg.ingest(records)
    echo(
        f"ingest: read {report.read}, created {report.created}, unchanged {report.unchanged}, "
        f"superseded {report.superseded}, linked {report.linked}, errors {len(report.errors)}"
    )
    answers: dict[str, Any] = {}

    def section(title: str) -> None:
        echo("")
        echo(click.style(title, bold=True))

    section("1. Why were pictures broken on the product pages on Friday?  (walks CAUSED_BY)")
    w = mg.why("why were pictures broken on the product pages on Friday?")
    answers["why"] = w
    if w.abstained:
        echo(f"   I don't know: {w.reason}")
    else:
        assert w.symptom is not None  # a why that answers has its symptom
        echo(f"   symptom: {w.symptom.text}")
        echo(f"   root:    {w.roots[0]['text']}  (depth {w.roots[0]['depth']})")
        echo(f"   path:    {' → '.join(w.paths[0])}")

    section("2. Does Maya like diet coke?  (a newer fact on the slot retires the old one)")
    answers["now_dietcoke"] = mg.now("maya", "likes", "diet coke")
    answers["asof_dietcoke"] = mg.as_of("maya", "likes", "2026-03-01", "diet coke")
    echo(f"   now:           {_fact(answers['now_dietcoke'])}")
    echo(f"   on 2026-03-01: {_fact(answers['asof_dietcoke'])}")
    hist = mg.history("maya", "likes", "diet coke")
    answers["history_dietcoke"] = hist
    echo(
        "   history:       "
        + " → ".join(("" if v.polarity else "not ") + "likes" + f" ({iso(v.valid_from)[:10]})" for v in hist)
    )
    flat = mg.recall("does Maya like diet coke?", k=2, include_superseded=True, channels=["vector"])
    echo("   a flat vector store sees: " + " | ".join(f"{h.text[:48]} (cos {h.similarity:.2f})" for h in flat.hits))

    section("3. Where does Maya live, and where did she live on 2026-02-01?  (as-of)")
    answers["now_home"] = mg.now("maya", "lives_in")
    answers["asof_home"] = mg.as_of("maya", "lives_in", "2026-02-01")
    echo(f"   now:           {_fact(answers['now_home'])}")
    echo(f"   on 2026-02-01: {_fact(answers['asof_home'])}")

    section("4. Maya's phone number  (written as 'phone' and 'telephone'; both land on phone_number)")
    answers["now_phone"] = mg.now("maya", "phone_number")
    echo(f"   now:           {_fact(answers['now_phone'])}")
    echo(f"   on 2026-03-01: {_fact(mg.as_of('maya', 'phone_number', '2026-03-01'))}")

    section('5. recall "QX-7741"  (an exact code: the keyword channel finds it, embeddings blur it)')
    r = mg.recall("QX-7741", k=3)
    answers["recall_code"] = r
    for h in r.hits:
        echo(f"   {h.id:14} {h.text[:70]}  channels={h.channels}")

    section("6. What did we decide about the onboarding launch?")
    r = mg.recall("what did we decide about the onboarding launch?", k=3)
    answers["recall_decision"] = r
    for h in r.hits:
        echo(f"   {h.id:14} {h.text[:80]}")

    section("7. Anything involving Ravi?  (entity channel)")
    r = mg.recall("anything involving Ravi?", k=5)
    answers["recall_entity"] = r
    for h in r.hits:
        echo(f"   {h.id:14} {h.text[:80]}")

    section("8. Questions it should decline")
    r = mg.recall("what is Maya's favourite band?")
    answers["recall_unknown"] = r
    echo(
        "   recall 'what is Maya's favourite band?': "
        + ("I don't know — " + (r.reason or "") if r.abstained else f"answered: {r.hits[0].text}")
    )
    w = mg.why("why did Ravi move to the payments team?")
    answers["why_unknown"] = w
    echo(
        "   why 'why did Ravi move to the payments team?': "
        + ("I don't know — " + (w.reason or "") if w.abstained else f"answered: {w.roots[0]['text']}")
    )
    echo("")
    echo(
        f"Open Neo4j Browser and try `kgmem cypher why/roots`: the answers above are graph walks in tenant '{mg.tenant}'."
    )
    return answers
