"""The docs read as a manual: docs/benchmarks.md is short, with one current row per figure (no table cell
holding a work log), and nothing in README.md or docs/ speaks to the project's own workers (an issue note, a
session, an issue number, where a file was copied from). History goes to CHANGELOG.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BENCHMARKS = ROOT / "docs" / "benchmarks.md"

MAX_BENCHMARKS_BYTES = 15_000
MAX_CELL = 200  # characters in one table cell: a figure and how it was measured, not a dated log

# what only the project's own workers would read: notes to write, sessions, issue numbers, stops, a copy's origin
ADDRESSED_TO_WORKERS = [
    r"\bissue notes?\b",
    r"\byour (issue|note|session|brief|task)\b",
    r"\b(this|that|the|a|each|every|your) session's\b",
    r"\bthis session\b",
    r"\bissue \d+\b",
    r"\bstop \d+\b",
    r"\.\./shared/interface\.md",
]


def test_benchmarks_fit_in_15_kb():
    size = len(BENCHMARKS.read_bytes())
    assert size <= MAX_BENCHMARKS_BYTES, f"docs/benchmarks.md is {size} bytes: move history to CHANGELOG.md"


def test_benchmark_tables_hold_short_cells():
    long = [
        (n, cell[:80] + "…")
        for n, line in enumerate(BENCHMARKS.read_text(encoding="utf-8").splitlines(), 1)
        if line.startswith("|")
        for cell in line.strip().strip("|").split(" | ")
        if len(cell.strip()) > MAX_CELL
    ]
    assert long == [], f"table cells over {MAX_CELL} characters (a figure per row; the log goes to CHANGELOG.md)"


def test_each_benchmark_suite_has_a_table_and_its_command():
    text = BENCHMARKS.read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert len(sections) >= 7, [s.splitlines()[0] for s in sections]
    for section in sections:
        title = section.splitlines()[0]
        assert "kgmem bench --suite" in section, f"{title}: say how it is measured (the command)"
        if not title.startswith("reliability"):
            assert "\n|---" in section, f"{title}: one short table of the current figures"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_line_speaks_to_the_projects_workers(doc):
    hits = [
        (n, line.strip()[:120])
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        if any(re.search(p, line, flags=re.I) for p in ADDRESSED_TO_WORKERS)
    ]
    assert hits == [], f"{doc.name}: lines for the project's workers, not its users (history: CHANGELOG.md)"
