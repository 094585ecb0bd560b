"""One code base, two server generations: the server's version decides which statement variants run
(cypher/<group>/v2026/...) and which schema the database gets."""

from __future__ import annotations

import pytest

from kgmem.store import cypher, schema
from kgmem.store import rules as eligibility
from kgmem.store.capabilities import FILTERED_VECTOR_SEARCH, ServerInfo, version_key


@pytest.mark.parametrize(
    ("version", "generation"),
    [
        ("5.26.30", None),
        ("5.27-aura", None),
        ("2025.10.1", None),
        ("2026.01.0", None),  # the SEARCH filters were a preview in 2026.01
        ("2026.02.0", "v2026"),
        ("2026.08.1", "v2026"),
        ("2027.01.0", "v2026"),
    ],
)
def test_the_generation_follows_the_kernel_version(version, generation):
    info = ServerInfo.from_components([{"name": "Neo4j Kernel", "version": version, "edition": "community"}])
    assert info.generation == generation
    assert (FILTERED_VECTOR_SEARCH in info.capabilities) is (generation == "v2026")


def test_version_keys_order_calendar_after_semantic_versions():
    assert version_key("5.26.30") < version_key("2025.01.0") < version_key("2026.08.1")
    assert version_key("2026.08.1") == (2026, 8, 1)


def test_variants_stand_in_for_their_base_with_the_same_parameters():
    variants = cypher.variants()
    assert {"recall/vector", "recall/candidates", "schema/04_memory_embedding"} <= set(variants)
    for base, by_generation in variants.items():
        assert base in cypher.names(), f"{by_generation} has no base statement {base}"
        for generation, name in by_generation.items():
            assert cypher.variant(base, generation) == name
            assert cypher.variant(base, None) == base
            # a caller passes the same parameters to either: what one uses, the other uses or declares
            # (recall/candidates' $vector_exact steers 5.26's scan; 2026.x's index filters by itself)
            var, orig = cypher.load(name), cypher.load(base)
            assert set(orig.params) <= set(var.params) | {n for n, _ in var.example_params}, name
            assert set(var.params) <= set(orig.params) | {n for n, _ in orig.example_params}, name
            assert cypher.load(name).text.startswith("CYPHER 25"), f"{name}: run as Cypher 25 on any database"
    assert cypher.variant("recall/keyword", "v2026") == "recall/keyword"  # no variant: the base everywhere


def test_the_2026_vector_statements_filter_by_tenant_inside_the_index():
    for name in ("recall/v2026/vector", "recall/v2026/candidates"):
        text = cypher.load(name).text
        assert "db.index.vector.queryNodes" not in text, name
        assert text.count("WHERE m.tenant = $tenant LIMIT") == 3, name  # every vector index, in the index
        assert "merged_into IS NULL" in text  # the rest of the rule still applies after the search
    for name in ("recall/vector", "recall/candidates"):
        assert "SEARCH" not in cypher.load(name).text


def test_the_schema_of_each_generation():
    base, v2026 = schema.schema_statements(), schema.schema_statements("v2026")
    assert len(base) == len(v2026) >= 21
    assert [cypher.base_of(n) for n in v2026] == base
    assert "schema/v2026/04_memory_embedding" in v2026 and not any("/v2026/" in n for n in base)
    assert schema.version() != schema.version("v2026")
    assert schema.expected_properties("v2026")["memory_embedding"] == [
        "embedding",
        *eligibility.VECTOR_FILTER_PROPERTIES,
    ]
    assert schema.expected_properties()["memory_embedding"] == ["embedding"]
    text = cypher.load("schema/v2026/04_memory_embedding").text
    assert "WITH [m.tenant]" in text
    # the 5.26 files say the same index as the generator, without WITH
    for index in eligibility.VECTOR_INDEX_PROPERTY:
        name = next(n for n in base if n.endswith(index))
        assert cypher.load(name).text == eligibility.vector_index_statement(index), name


def test_an_index_without_the_tenant_is_stale_on_2026():
    rows = [{"name": n, "state": "ONLINE", "properties": p} for n, p in schema.EXPECTED_PROPERTIES.items()]
    assert schema.indexes_ok(rows) and not schema.indexes_ok(rows, "v2026")
    assert set(schema.stale_indexes(rows, "v2026")) == schema.VECTOR_INDEXES
    assert schema.stale_indexes(rows) == []
