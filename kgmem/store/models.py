"""The graph's types as neomodel classes: every node label, relationship type and property kgmem writes.

These classes are the typed description of the graph (``tests/integration/test_models.py`` checks that every
property and edge kgmem writes is declared here, with a matching type). kgmem's own reads and writes are the
parameterised statements in ``cypher/`` — batched ``UNWIND`` writes and one-round-trip reads that an OGM
cannot express — so the classes do not write; they are for people who want objects:

    from kgmem import MemoryGraph
    from kgmem.store import models

    with MemoryGraph.from_env(tenant="demo") as mg:
        models.bind(mg.store)                          # neomodel uses kgmem's driver and database
        fact = models.Fact.nodes.get(tenant="demo", uid="maya-moved")
        older = fact.supersedes.all()                  # the versions it retired
        causes = models.Episode.nodes.get(tenant="demo", uid="img-symptom").caused_by.all()

neomodel reserves ``id`` (nodes) and ``source`` (edges), so those stored properties are ``uid`` and
``link_source`` here. Filter on ``tenant`` yourself: these classes see the whole database. Do not pass user text to neomodel's
fulltext filter (it pastes the string into Cypher); use ``MemoryGraph.recall``. Schema (constraints and
indexes) comes from ``cypher/schema``, never from neomodel's ``install_all_labels``.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    ZeroOrMore,
)

from .session import Store

# neomodel's DateTimeProperty stores epoch floats; kgmem stores native zoned DATETIME values.
DateTime = DateTimeNeo4jFormatProperty


# -- relationships -----------------------------------------------------------------------------------------


class CausedBy(StructuredRel):
    """``(effect)-[:CAUSED_BY]->(cause)``: explicit (``caused_by`` in a record, confidence 1.0) or inferred from
    words after the write (``inferred: true`` with the confidence it was inferred with)."""

    inferred = BooleanProperty()
    confidence = FloatProperty()
    link_source = StringProperty(db_property="source")  # neomodel reserves the name ``source`` on edges


class Supersedes(StructuredRel):
    """``(newer)-[:SUPERSEDES]->(older)``: a slot's version chain (no properties), or inferred from plain text
    after the write (``kgmem.derived.supersession``: ``inferred: true``, the model's ``confidence``, ``by``,
    the ``transform`` and the ``cue`` words)."""

    inferred = BooleanProperty()
    confidence = FloatProperty()
    by = StringProperty()
    transform = StringProperty()
    cue = StringProperty()


class DerivedFrom(StructuredRel):
    """``(derived)-[:DERIVED_FROM]->(source)``: a compiled fact, a merge or a summary, and the transform."""

    transform = StringProperty()


class CoOccurs(StructuredRel):
    """``(a:Entity)-[:CO_OCCURS]->(b:Entity)`` with ``a.key < b.key``; the weight decays each consolidation."""

    weight = FloatProperty()
    count = IntegerProperty()
    updated = DateTime()


# -- nodes -------------------------------------------------------------------------------------------------


class Entity(StructuredNode):
    """One named thing per normalised ``key`` and tenant."""

    __label__ = "Entity"
    tenant = StringProperty(required=True)
    key = StringProperty(required=True)
    name = StringProperty()
    aliases = ArrayProperty(StringProperty())
    alias_text = StringProperty()
    named_mentions = IntegerProperty()
    created_at = DateTime()

    mentioned_by = RelationshipFrom("Memory", "MENTIONS", cardinality=ZeroOrMore)
    co_occurs = RelationshipTo("Entity", "CO_OCCURS", model=CoOccurs, cardinality=ZeroOrMore)


class Memory(StructuredNode):
    """Anything remembered. Every memory also carries one of the labels below."""

    __label__ = "Memory"
    tenant = StringProperty(required=True)
    uid = StringProperty(required=True, db_property="id")  # neomodel reserves the name ``id``
    text = StringProperty(required=True)
    kind = StringProperty()  # episode / fact / summary
    origin = StringProperty()  # record / compiled / consolidated
    user = StringProperty()
    stream = StringProperty()
    source = StringProperty()
    confidence = FloatProperty()
    retention = StringProperty()
    at = DateTime()  # valid time
    recorded_at = DateTime()  # transaction time
    valid_to = DateTime()  # null while current
    content_key = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    embedding_model = StringProperty()
    # derived stream context (kgmem/derived/context.py)
    context_text = StringProperty()
    window_text = StringProperty()
    context_embedding = ArrayProperty(FloatProperty())
    wide_embedding = ArrayProperty(FloatProperty())
    transform = StringProperty()  # for derived memories: what made them
    merged_into = StringProperty()  # a near-duplicate folded into a consolidated memory
    supersession = StringProperty()  # the inferred-supersession pass that read it (its transform version)
    causes = StringProperty()  # the inferred-cause pass that read it (its transform version)
    cause_in_text = FloatProperty()  # the cause model's confidence that it states its own cause
    clause_embedding = ArrayProperty(FloatProperty())  # the vector of the cause clause it states (derived)
    entities_given = BooleanProperty()  # its record named its entities (no name learned later is added)

    supersedes = RelationshipTo("Memory", "SUPERSEDES", model=Supersedes, cardinality=ZeroOrMore)
    superseded_by = RelationshipFrom("Memory", "SUPERSEDES", model=Supersedes, cardinality=ZeroOrMore)
    caused_by = RelationshipTo("Memory", "CAUSED_BY", model=CausedBy, cardinality=ZeroOrMore)
    effects = RelationshipFrom("Memory", "CAUSED_BY", model=CausedBy, cardinality=ZeroOrMore)
    next = RelationshipTo("Memory", "NEXT", cardinality=ZeroOrMore)
    previous = RelationshipFrom("Memory", "NEXT", cardinality=ZeroOrMore)
    mentions = RelationshipTo(Entity, "MENTIONS", cardinality=ZeroOrMore)
    derived_from = RelationshipTo("Memory", "DERIVED_FROM", model=DerivedFrom, cardinality=ZeroOrMore)
    derivations = RelationshipFrom("Memory", "DERIVED_FROM", model=DerivedFrom, cardinality=ZeroOrMore)


class Span:
    """What consolidation records on a memory that stands for several (a merge or a pattern summary)."""

    first_at = DateTime()
    last_at = DateTime()
    occurrences = IntegerProperty()


class Episode(Memory, Span):
    """A raw observation (``:Memory:Episode``), append-only. Consolidated merges carry the span fields."""

    __label__ = "Episode"


class Fact(Memory):
    """One version of a Knowledge-Object slot (``:Memory:Fact``)."""

    __label__ = "Fact"
    subject = StringProperty()
    predicate = StringProperty()
    object = StringProperty()
    object_key = StringProperty()
    polarity = BooleanProperty()
    slot = StringProperty()  # 64-bit slot key, hex
    version = IntegerProperty()


class Summary(Memory, Span):
    """A pattern summary made by consolidation (``:Memory:Summary``), DERIVED_FROM every source."""

    __label__ = "Summary"
    pattern = StringProperty()
    weekday = StringProperty()


class Tombstone(StructuredNode):
    """That a memory existed and was forgotten: id and content key, no content."""

    __label__ = "Tombstone"
    tenant = StringProperty(required=True)
    uid = StringProperty(required=True, db_property="id")  # neomodel reserves the name ``id``
    content_key = StringProperty()
    forgotten_at = DateTime()
    reason = StringProperty()


class ConsolidationRun(StructuredNode):
    """What one ``consolidate`` did."""

    __label__ = "ConsolidationRun"
    tenant = StringProperty(required=True)
    uid = StringProperty(required=True, db_property="id")  # neomodel reserves the name ``id``
    at = DateTime()
    params = StringProperty()  # JSON
    kept = IntegerProperty()
    merges_created = IntegerProperty()
    merges_removed = IntegerProperty()
    merged_sources = IntegerProperty()
    summaries_created = IntegerProperty()
    summaries_removed = IntegerProperty()
    superseded = IntegerProperty()
    cooc_pairs = IntegerProperty()
    cooc_created = IntegerProperty()
    cooc_reinforced = IntegerProperty()
    cooc_decayed = IntegerProperty()


NODE_CLASSES: tuple[type[StructuredNode], ...] = (Memory, Episode, Fact, Summary, Entity, Tombstone, ConsolidationRun)
RELATIONSHIP_CLASSES: dict[str, type[StructuredRel] | None] = {
    "CAUSED_BY": CausedBy,
    "DERIVED_FROM": DerivedFrom,
    "CO_OCCURS": CoOccurs,
    "SUPERSEDES": Supersedes,
    "NEXT": None,
    "MENTIONS": None,
}


def bind(store: Store) -> None:
    """Point neomodel at ``store``'s driver and database (kgmem's connection, auth and database)."""
    store.bind_neomodel()
