"""``ask`` on the real server: the router picks the operation and the answer comes from Neo4j."""

from __future__ import annotations

from ..conftest import FIXTURES


def test_ask_routes_to_the_right_operation(mg):
    import json

    records = [json.loads(line) for line in (FIXTURES / "demo" / "demo.jsonl").read_text().splitlines() if line.strip()]
    for r in records:
        r["tenant"] = mg.tenant
    assert mg.ingest(records).errors == []

    a = mg.ask("where does maya live?")
    assert (a.intent, a.operation) == ("slot", "now") and a.result.value.object == "Lisbon"
    a = mg.ask("where did Maya live in February 2026?")
    assert a.intent == "history" and a.operation == "as_of" and a.result.value.object == "Boston"
    a = mg.ask("does maya still like diet coke?")
    assert a.operation == "now" and a.result.value.polarity is False
    a = mg.ask("why were pictures broken on the product pages on Friday?")
    assert a.operation == "why" and a.result.roots[0]["id"] == "img-root"
    a = mg.ask("write a poem about Lisbon")
    assert a.intent == "none" and a.operation is None and a.result is None
    # the router reads no memory operation in it, but it is written as a question: recall answers it, and says so
    a = mg.ask("Are the product images back?")
    assert (a.intent, a.operation) == ("none", "recall") and a.result.hits[0].id == "img-fix"
    assert a.note == "the router reads no memory operation in it; answered from the best evidence recall finds"
    d = mg.ask("anything about QX-7741?").to_dict()
    assert d["operation"] == "recall" and d["result"]["hits"][0]["id"] in ("err-qx7741", "su-02")
