"""The recall statements' shared rules are written once (kgmem/query/eligibility.py) and expanded into
cypher/recall/*.cypher by cog: the committed expansion must be current, and every statement carries it."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from cogapp import Cog

from kgmem.query.filters import Filters
from kgmem.store import cypher
from kgmem.store import rules as eligibility

ROOT = Path(__file__).resolve().parents[2]
GENERATED = sorted(p for p in (ROOT / "cypher").rglob("*.cypher") if "[[[cog" in p.read_text(encoding="utf-8"))


def _check(paths: list[Path]) -> int:
    return Cog().main(["cog", "--check", "--verbosity=0", *map(str, paths)])


def test_every_recall_statement_that_filters_is_generated():
    names = {p.relative_to(ROOT / "cypher").with_suffix("").as_posix() for p in GENERATED}
    assert {
        "recall/candidates",
        "recall/vector",
        "recall/vector_exact",
        "recall/keyword",
        "recall/entity",
        "recall/eligible_count",
        "recall/details",
        "recall/v2026/candidates",
        "recall/v2026/vector",
        "schema/v2026/04_memory_embedding",
        "schema/v2026/18_memory_context_embedding",
        "schema/v2026/19_memory_wide_embedding",
    } <= names


def test_the_committed_expansions_are_current():
    assert _check(GENERATED) == 0, "run: python scripts/gen_cypher.py"


def test_a_stale_expansion_fails_the_check(tmp_path):
    stale = tmp_path / "vector.cypher"
    shutil.copy(ROOT / "cypher" / "recall" / "vector.cypher", stale)
    stale.write_text(stale.read_text().replace("row.m.merged_into IS NULL", "row.m.merged_into IS NOT NULL", 1))
    assert _check([stale]) != 0


def test_each_statement_applies_the_whole_rule_once_per_channel():
    """... plus twice in the hit map, over the memories that retired a hit (its ``superseded_by``: directly, and
    through the facts compiled from it); the candidates statement returns candidate maps (no ``superseded_by``),
    recall/details the full hit maps."""
    for name, channels in (
        ("recall/candidates", 6 + 1),
        ("recall/v2026/candidates", 6 + 1),
        ("recall/details", 2),
        ("recall/vector", 1),
        ("recall/v2026/vector", 1),
        ("recall/keyword", 1),
        ("recall/entity", 1),
    ):
        text = cypher.load(name).text
        assert text.count("merged_into IS NULL") == channels, name
        assert text.count("$include_superseded OR") == 2 * channels, name


def test_the_filters_parameter_names_come_from_the_rule():
    assert tuple(Filters(tenant="t").params()) == eligibility.PARAMS
    fields = {f.name for f in dataclasses.fields(Filters)}
    assert set(eligibility.PARAMS) <= fields
    for name in (
        "recall/candidates",
        "recall/v2026/candidates",
        "recall/vector",
        "recall/v2026/vector",
        "recall/vector_exact",
        "recall/keyword",
        "recall/entity",
        "recall/eligible_count",
        "recall/details",
    ):
        assert set(eligibility.PARAMS) <= set(cypher.load(name).params), name
