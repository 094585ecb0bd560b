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
