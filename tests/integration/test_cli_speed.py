"""A fast CLI: the schema is applied once per database and schema version (remembered in a :KgmemSchema node,
checked with one setup read and the index states), and the CLI's commands load no torch: fact commands load no model at all, recall
runs the embedder on onnxruntime where it is installed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kgmem import onnx_embed
from kgmem.store import schema

from ..conftest import ROOT, schema_current

HEAVY = ("torch", "sentence_transformers", "transformers", "sklearn", "dateparser")


def test_the_schema_version_hashes_kgmem_and_every_schema_file():
    v = schema.version()
    from kgmem import __version__

    assert v.startswith(f"{__version__}+") and len(v.split("+")[1]) == 12
    assert len(schema.schema_statements()) >= 21  # files 18–21 included, whatever their number


def test_applied_once_then_a_cheap_check_and_a_changed_version_applies_again(store, embedder, tenant):
    from kgmem import MemoryGraph

    schema.apply(store)  # the store fixture applied it too: recorded now either way
    assert schema_current(store)
    mg = MemoryGraph(tenant=tenant, store=store, embedder=embedder)
    mg._ready()
    assert mg._schema_ready
    # a database marked with another version (an older kgmem, other schema files) is not current ...
    store.write("admin/schema_version_set", version="0.0.0+000000000000", kgmem_version="0.0.0", schema_files=0)
    try:
        assert not schema_current(store)
        fresh = MemoryGraph(tenant=tenant, store=store, embedder=embedder)
        fresh._ready()  # ... so the first use applies the schema and records this version again
        assert schema_current(store)
    finally:
        if not schema_current(store):
            schema.apply(store)
    assert "0.0.0+000000000000" not in store.setup(tenant, ["0.0.0+000000000000"], 1)["applied"]


def test_a_missing_or_other_index_is_notschema_current():
    rows = [{"name": n, "state": "ONLINE", "properties": schema.EXPECTED_PROPERTIES[n]} for n in schema.EXPECTED]
    assert schema.indexes_ok(rows)
    assert not schema.indexes_ok(rows[1:])
    assert not schema.indexes_ok([dict(r, state="POPULATING") if r["name"] == "memory_text" else r for r in rows])
    assert not schema.indexes_ok([dict(r, properties=["x"]) if r["name"] == "memory_slot" else r for r in rows])


def test_deleting_a_tenant_keeps_the_schema_record(store, tenant):
    store.auto_commit("admin/delete_tenant", tenant=tenant)
    assert schema_current(store)


def _run(env, args, modules=HEAVY + ("onnxruntime",)):
    """Run the CLI in a fresh interpreter; returns "HEAVY [the `modules` it imported] exit-code" and the process."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['kgmem'] + {args!r}\n"
        "try:\n    runpy.run_module('kgmem', run_name='__main__')\n"
        "except SystemExit as e:\n    code = e.code\n"
        "else:\n    code = 0\n"
        f"print('HEAVY', [m for m in {tuple(modules)!r} if m in sys.modules], code, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    line = [x for x in proc.stderr.splitlines() if x.startswith("HEAVY")]
    assert line, proc.stderr[-2000:]
    return line[0], proc


@pytest.mark.parametrize(
    "args",
    [["now", "maya", "lives_in"], ["history", "maya", "lives_in"], ["as-of", "maya", "lives_in", "--at", "2026-02-01"]],
)
def test_fact_commands_load_no_model(cli_env, args):
    line, proc = _run(cli_env, args)
    assert line == "HEAVY [] 0", proc.stderr[-2000:]


@pytest.mark.skipif(not onnx_embed.runtime_available(), reason="onnxruntime/tokenizers not installed")
def test_recall_runs_without_torch(cli_env, mg):
    mg.remember("Customer reported error QX-7741 when uploading a CSV", at="2026-03-01")
    assert onnx_embed.ensure() is not None, onnx_embed.failure()
    line, proc = _run(cli_env, ["recall", "QX-7741", "--json"])
    assert line == "HEAVY ['onnxruntime'] 0", proc.stderr[-2000:]
    assert "QX-7741" in proc.stdout


# the layers a command does not use stay unimported (kgmem.api imports them in the methods that need them)
WRITE_AND_RANKED = ("kgmem.ingest.pipeline", "kgmem.derived.consolidate", "kgmem.derived.forget", "kgmem.query.recall")


def test_fact_commands_load_neither_the_write_path_nor_recall(cli_env):
    line, proc = _run(cli_env, ["now", "maya", "lives_in"], modules=WRITE_AND_RANKED)
    assert line == "HEAVY [] 0", proc.stderr[-2000:]


@pytest.mark.parametrize("args", [["--help"], ["server", "--help"], ["recall", "--help"]])
def test_commands_that_need_no_database_load_no_driver(cli_env, args):
    line, proc = _run(cli_env, args, modules=("neo4j", "numpy", "kgmem.api") + WRITE_AND_RANKED)
    assert line == "HEAVY [] 0", proc.stderr[-2000:]


CHANNEL_STATEMENTS = ("recall/candidates", "recall/vector", "recall/keyword", "recall/entity", "recall/eligible_count")


def test_a_new_connections_first_recall_sends_at_most_three_statements_before_its_channels(recording, embedder, tenant):
    """A CLI recall is a new connection: one setup read (the server, the recorded schema version, the tenant's
    model and version), the index states, and a small tenant's texts for its keyword statistics — then the
    channels. The next recall of the same connection reads only the tenant's version first."""
    from kgmem import MemoryGraph

    writer = MemoryGraph(tenant=tenant, store=recording, embedder=embedder)
    writer.ingest(
        [{"id": f"n{i}", "text": f"deploy note {i} about the billing job", "at": "2026-01-15"} for i in range(5)]
    )
    fresh = type(recording)(recording.connection)  # a new connection, as a CLI process opens
    try:
        mg = MemoryGraph(tenant=tenant, store=fresh, embedder=embedder)
        mg.recall("billing job deploy", k=3)
        first = next(i for i, name in enumerate(fresh.asked) if name in CHANNEL_STATEMENTS)
        assert fresh.asked[:first] == ["admin/setup", "admin/index_states", "recall/tenant_texts"], fresh.asked
        fresh.asked.clear()
        mg.recall("billing job deploy note 3", k=3)
        first = next(i for i, name in enumerate(fresh.asked) if name in CHANNEL_STATEMENTS)
        assert fresh.asked[:first] == ["recall/tenant_version"], fresh.asked
    finally:
        fresh.close()
