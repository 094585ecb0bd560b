"""The neomodel classes in ``kgmem.store.models`` describe the graph kgmem really writes: every label,
property (with its type) and relationship found in a tenant that exercises the write path, consolidation and
forgetting is declared, and the classes read that tenant back as typed objects through kgmem's driver."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    StringProperty,
)

from kgmem.store import models

from .test_lifecycle import LG, _rich_tenant

# Cypher's valueType() names for each neomodel property class
CYPHER_TYPE = {
    StringProperty: "STRING",
    IntegerProperty: "INTEGER",
    FloatProperty: "FLOAT",
    BooleanProperty: "BOOLEAN",
    DateTimeNeo4jFormatProperty: "ZONED DATETIME",
}


def _expected_type(prop) -> str:
    if isinstance(prop, ArrayProperty):
        return f"LIST<{CYPHER_TYPE[type(prop.base_property)]} NOT NULL>"
    return CYPHER_TYPE[type(prop)]


def _stored(cls) -> dict:
    """A model's properties by the name they are stored under (``db_property`` where it differs)."""
    return {
        (prop.db_property or name): prop for name, prop in cls.defined_properties(aliases=False, rels=False).items()
    }


def _node_class(labels: list[str]):
    """The most specific model class for a node's labels (``Fact`` for ``:Memory:Fact``)."""
    matches = [c for c in models.NODE_CLASSES if set(c.inherited_labels()) <= set(labels)]
    assert matches, f"no model class for labels {labels}"
    return max(matches, key=lambda c: len(c.inherited_labels()))


@pytest.fixture(scope="module")
def rich(store, embedder):
    """A tenant with episodes, facts and versions, causes, streams, entities, a merge, a summary,
    co-occurrence edges, a consolidation run and a tombstone."""
    tenant = "test-models-" + uuid.uuid4().hex[:8]
    g = LG(tenant=tenant, store=store, embedder=embedder)
    g._schema_ready = True
    _rich_tenant(g)
    g.forget("gw-1")
    models.bind(store)
    yield store, tenant
    store.auto_commit("admin/delete_tenant", tenant=tenant)


def test_every_label_and_property_written_is_declared_with_its_type(rich):
    store, tenant = rich
    rows = store.read("admin/describe_nodes", tenant=tenant)
    labels_seen = {tuple(sorted(r["labels"])) for r in rows}
    # the tenant really exercises every node type
    assert {
        ("Episode", "Memory"),
        ("Fact", "Memory"),
        ("Memory", "Summary"),
        ("Entity",),
        ("Tombstone",),
        ("ConsolidationRun",),
    } <= labels_seen
    undeclared, mistyped = [], []
    for r in rows:
        cls = _node_class(r["labels"])
        props = _stored(cls)
        if r["key"] not in props:
            undeclared.append((cls.__name__, r["key"]))
        elif r["type"].removesuffix(" NOT NULL") != _expected_type(props[r["key"]]):
            mistyped.append((cls.__name__, r["key"], r["type"], _expected_type(props[r["key"]])))
    assert undeclared == [] and mistyped == []


def test_every_relationship_type_and_property_written_is_declared(rich):
    store, tenant = rich
    rows = store.read("admin/describe_relationships", tenant=tenant)
    types_seen = {r["type"] for r in rows}
    assert types_seen == set(models.RELATIONSHIP_CLASSES)
    for r in rows:
        model = models.RELATIONSHIP_CLASSES[r["type"]]
        declared = set(_stored(model)) if model else set()
        assert set(r["keys"]) <= declared, (r["type"], r["keys"])
        # an edge type is declared on the class of the node it starts from
        cls = _node_class(r["labels"])
        rel_types = {
            rel.definition["relation_type"]
            for rel in cls.defined_properties(aliases=False, properties=False).values()
            if rel.definition["direction"] == 1
        }
        assert r["type"] in rel_types, (cls.__name__, r["type"])


def test_models_read_the_graph_as_typed_objects(rich):
    store, tenant = rich
    # a slot with two versions: the newer SUPERSEDES the older, which has valid_to set
    phones = sorted(
        models.Fact.nodes.filter(tenant=tenant, subject="maya", predicate="phone_number"), key=lambda f: f.at
    )
    assert [f.object for f in phones] == ["555-0101", "555-0199"]
    old, new = phones
    assert isinstance(new.at, dt.datetime) and new.at.tzinfo is not None
    assert new.valid_to is None and old.valid_to == new.at
    assert [f.uid for f in new.supersedes.all()] == [old.uid]
    assert len(new.embedding) == 384 and isinstance(new.embedding[0], float)
    # a CAUSED_BY edge with its properties, and the summary's lineage
    effect = models.Episode.nodes.get(tenant=tenant, uid="img-h2")
    causes = effect.caused_by.all()
    assert causes
    edge = effect.caused_by.relationship(causes[0])
    assert edge.confidence == 1.0 and edge.inferred is False
    summary = models.Summary.nodes.filter(tenant=tenant)[0]
    assert sorted(s.uid for s in summary.derived_from.all()) == [f"thai-{i}" for i in range(5)]
    # the forgotten memory is a tombstone without text
    stone = models.Tombstone.nodes.get(tenant=tenant, uid="gw-1")
    assert stone.content_key and not hasattr(stone, "text")
    assert models.Memory.nodes.filter(tenant=tenant, uid="gw-1").all() == []
