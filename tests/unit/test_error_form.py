"""One error form (issue 46): every kgmem error says what to do about it. The CLI prints ``Error: <message>
Fix: <fix>.`` and the MCP tools return the same line; an error built without a fix printed no ``Fix:`` part
(8 such texts over MCP). Every place kgmem builds one of its errors names the fix (read from the source)."""

from __future__ import annotations

import ast
from pathlib import Path

import kgmem
from kgmem import errors

_ERRORS = {name for name, value in vars(errors).items() if isinstance(value, type) and issubclass(value, Exception)}


def test_every_kgmem_error_is_built_with_a_fix():
    root = Path(kgmem.__file__).parent
    missing = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name in _ERRORS and not any(k.arg in ("fix", None) for k in node.keywords):
                missing.append(f"{path.relative_to(root.parent)}:{node.lineno}: {ast.unparse(node)[:100]}")
    assert missing == []


def test_remember_raises_the_records_own_error_with_its_fix():
    from kgmem.ingest.pipeline import _reject
    from kgmem.results import IngestReport

    report = IngestReport()
    _reject(report, 1, errors.InputError("is 1048576 characters long", field="text", fix="split it"))
    assert report.errors == [{"line": 1, "error": "field 'text': is 1048576 characters long (split it)"}]
    assert report.problems[0].fix == "split it" and "problems" not in report.to_dict()
