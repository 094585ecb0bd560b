"""The package's layering, read from the imports (ast) of every kgmem/**.py:

- only kgmem/store imports the Neo4j driver (``neo4j``) or ``neomodel``;
- kgmem/ingest (the write path) and kgmem/query (the read path) never import each other;
- kgmem/cli talks to the library through its public face only: kgmem.api, errors, config, results, server,
  demo, mcp_server and its own modules (never kgmem.store, ingest, query or derived).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kgmem"
FILES = sorted(PACKAGE.rglob("*.py"))
CLI_MAY_IMPORT = (
    "kgmem.api",
    "kgmem.errors",
    "kgmem.config",
    "kgmem.results",
    "kgmem.server",
    "kgmem.demo",
    "kgmem.cli",
    "kgmem.mcp_server",
    "kgmem.record_spec",
)  # the MCP front end (`kgmem mcp`), a peer of kgmem.server and kgmem.demo


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved; ``from x import y`` gives
    both ``x`` and ``x.y``, since ``y`` may be a submodule)."""
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return out


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _in(path: Path, sub: str) -> bool:
    return _within(_module_of(path), f"kgmem.{sub}")


def _rel(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def test_the_import_reader_resolves_relative_imports():
    path = PACKAGE / "cli" / "common.py"
    names = imports(path)
    assert "kgmem.errors" in names and "kgmem.errors.KgmemError" in names and "click" in names


@pytest.mark.parametrize("driver", ["neo4j", "neomodel"])
def test_only_the_store_imports_the_driver(driver):
    offenders = {_rel(p): sorted(n for n in imports(p) if _within(n, driver)) for p in FILES if not _in(p, "store")}
    assert not {k: v for k, v in offenders.items() if v}, f"only kgmem/store may import {driver}"


@pytest.mark.parametrize(("side", "other"), [("ingest", "query"), ("query", "ingest")])
def test_write_and_read_paths_do_not_import_each_other(side, other):
    offenders = {_rel(p): sorted(n for n in imports(p) if _within(n, f"kgmem.{other}")) for p in FILES if _in(p, side)}
    assert not {k: v for k, v in offenders.items() if v}, f"kgmem/{side} must not import kgmem.{other}"


def test_the_cli_uses_only_the_public_face():
    offenders = {}
    for p in FILES:
        if not _in(p, "cli"):
            continue
        bad = sorted(
            n
            for n in imports(p)
            if _within(n, "kgmem") and n != "kgmem" and not any(_within(n, ok) for ok in CLI_MAY_IMPORT)
        )
        if bad:
            offenders[_rel(p)] = bad
    assert not offenders, "kgmem/cli may import only " + ", ".join(CLI_MAY_IMPORT)


@pytest.mark.parametrize("upper", ["query", "ingest", "derived", "api", "cli"])
def test_the_store_imports_nothing_above_it(upper):
    """kgmem/store is the floor the layers stand on: the rule data it runs (kgmem/store/rules.py) lives in it,
    so it never reaches up into a layer that uses it."""
    offenders = {
        _rel(p): sorted(n for n in imports(p) if _within(n, f"kgmem.{upper}")) for p in FILES if _in(p, "store")
    }
    assert not {k: v for k, v in offenders.items() if v}, f"kgmem/store must not import kgmem.{upper}"


def test_validation_is_a_floor_1_module():
    """kgmem.validate (every operation's input checks and limits) imports only the floor below it."""
    names = {n for n in imports(PACKAGE / "validate.py") if _within(n, "kgmem")}
    assert names <= {"kgmem.errors", "kgmem.errors.InputError", "kgmem.normalize"} | {
        f"kgmem.normalize.{f}" for f in ("normalize_subject", "object_key", "snake_case", "user_key", "NO_USER")
    }, names


_MUTABLE_CALLS = frozenset(
    ("dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque", "ThreadPoolExecutor", "Lock", "RLock")
)


def module_level_mutables(path: Path) -> list[str]:
    """Names bound at module level to a mutable container or a stateful object (a dict, list or set display
    or comprehension, or a call of one of :data:`_MUTABLE_CALLS`)."""
    out = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            value, target = node.value, node.targets[0]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            value, target = node.value, node.target
        else:
            continue
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp))
        if isinstance(value, ast.Call):
            f = value.func
            mutable = (f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "") in (
                _MUTABLE_CALLS
            )
        if mutable:
            out.append(f"{_rel(path)}:{node.lineno} {ast.unparse(target)}")
    return out


def test_the_reader_of_module_state_finds_it(tmp_path):
    sample = tmp_path / "kgmem" / "m.py"
    sample.parent.mkdir()
    sample.write_text(
        "A = {}\nB: list[int] = []\nC = frozenset()\nD = (1, 2)\nimport threading\nE = threading.Lock()\n"
    )
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "kgmem"
    try:
        assert [s.split()[-1] for s in module_level_mutables(sample)] == ["A", "B", "E"]
    finally:
        PACKAGE = saved


def test_the_read_path_keeps_no_module_level_state():
    """How a query runs must not depend on earlier queries of the process or on another database: what the
    read path learns is attached to the connection (kgmem/query/tenant_stats.py, through store.runtime.attached),
    and its constant tables are immutable."""
    found = [m for p in FILES if _in(p, "query") for m in module_level_mutables(p)]
    assert not found, found


def _functions(path: Path) -> list[tuple[str, int]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((f"{_rel(path)}:{node.lineno} {node.name}", node.end_lineno - node.lineno + 1))
    return out


MAX_FUNCTION_LINES = 80


def test_no_function_of_the_read_path_or_the_api_is_over_80_lines():
    long = [(name, n) for p in FILES if _in(p, "query") or _in(p, "api") for name, n in _functions(p)]
    long = [(name, n) for name, n in long if n > MAX_FUNCTION_LINES]
    assert not long, long


def test_recall_reads_as_its_named_steps():
    """recall() is its steps in order — rank() (gather, fuse, boost, select), then judge, context, manifest —
    each function at most 60 lines."""
    path = PACKAGE / "query" / "recall.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def steps_of(name: str, steps: list[str]) -> list[str]:
        fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
        assert fn.end_lineno - fn.lineno + 1 <= 60
        calls = sorted((c for c in ast.walk(fn) if isinstance(c, ast.Call)), key=lambda c: (c.lineno, c.col_offset))
        return [s for s in (c.func.id for c in calls if isinstance(c.func, ast.Name)) if s in steps]

    assert steps_of("rank", ["gather", "fuse", "boost", "select"]) == ["gather", "fuse", "boost", "select"]
    steps = ["rank", "judge", "attach_context", "manifest"]
    assert steps_of("recall", steps) == steps
