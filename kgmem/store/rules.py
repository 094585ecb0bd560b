"""The eligibility rule: which memories a query may see at all — the one source of it.

Every recall statement applies the same rule before it ranks anything: the tenant; not merged into a
consolidated memory; the user; the kinds; the valid-time window ``[start, end)``; the as-of time (a memory
must exist by then and, unless superseded versions are asked for, still be valid then); current-only
(superseded versions excluded unless ``include_superseded`` or an ``at`` is given).

The rule is written once, here, as data. ``cypher/recall/*.cypher`` carry its expansion between cog markers
(``// [[[cog ... ]]]`` … ``// [[[end]]]``); ``scripts/gen_cypher.py`` rewrites them, and ``tests/unit/test_cypher_generated.py`` fails when a committed expansion is stale. The parameter
names of :class:`~kgmem.query.filters.Filters` come from :data:`PARAMS`, so a new filter is one edit here
(plus its field in ``Filters``, which a test checks against this list).

The Cypher this module expands lives in ``cypher/_templates/*.cypher.tmpl`` (templates, read only by the
generator in the checkout: no statement runs from Python); here are the rule's conjuncts and what fills the
templates in.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "cypher" / "_templates"


@cache
def template(name: str) -> str:
    """``cypher/_templates/<name>.cypher.tmpl`` without its header comment (the generator's; not in the wheel)."""
    lines = (TEMPLATES / f"{name}.cypher.tmpl").read_text(encoding="utf-8").rstrip("\n").split("\n")
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(lines)


@dataclass(frozen=True)
class Clause:
    """One conjunct of the rule. ``cypher`` uses ``{m}`` for the memory and ``$name`` for its parameters.

    ``in_index`` is the same conjunct as a predicate a vector index can apply while it searches (Neo4j
    2026.x's ``SEARCH ... WHERE``: AND-ed equality or range predicates on properties the index lists in its
    ``WITH [...]``, no OR, no NOT, no IS NULL), with ``index_properties`` the properties it needs there; None
    where the conjunct cannot be said that way (it is then applied after the search, as on 5.26)."""

    params: tuple[str, ...]
    cypher: str
    meaning: str
    in_index: str | None = None
    index_properties: tuple[str, ...] = ()


CLAUSES: tuple[Clause, ...] = (
    Clause(
        ("tenant",),
        "{m}.tenant = $tenant",
        "the graph's tenant, always",
        in_index="{m}.tenant = $tenant",
        index_properties=("tenant",),
    ),
    Clause((), "{m}.merged_into IS NULL", "not merged into a consolidated memory"),
    Clause(("user",), "($user IS NULL OR {m}.user = $user)", "the user, when given"),
    Clause(("kinds",), "($kinds IS NULL OR {m}.kind IN $kinds)", "the kinds, when given"),
    Clause(("start",), "($start IS NULL OR {m}.at >= $start)", "valid time from start (inclusive)"),
    Clause(("end",), "($end IS NULL OR {m}.at < $end)", "valid time before end (exclusive)"),
    Clause(
        ("at", "include_superseded"),
        "(($at IS NULL AND ($include_superseded OR {m}.valid_to IS NULL))\n"
        " OR ($at IS NOT NULL AND {m}.at <= $at\n"
        "     AND ($include_superseded OR {m}.valid_to IS NULL OR {m}.valid_to > $at)))",
        "current only; as of $at: existed then and still valid then",
    ),
)

# every parameter the rule takes, in a fixed order (the Filters fields that reach Cypher)
PARAMS: tuple[str, ...] = tuple(dict.fromkeys(p for c in CLAUSES for p in c.params))
# the properties a vector index lists in WITH [...] so it can filter by the rule's in-index conjuncts (2026.x)
VECTOR_FILTER_PROPERTIES: tuple[str, ...] = tuple(dict.fromkeys(p for c in CLAUSES for p in c.index_properties))


def in_index_where(m: str = "m") -> str:
    """The rule's conjuncts a vector index can apply while it searches (``SEARCH ... WHERE``)."""
    return " AND ".join(c.in_index.format(m=m) for c in CLAUSES if c.in_index)


def where(m: str = "m", indent: str = "", *, tenant: bool = True, continued: bool = False) -> str:
    """The rule as a Cypher boolean expression over the node variable ``m``, one conjunct per line.

    ``tenant=False`` leaves out the tenant conjunct for statements whose node pattern already pins the tenant
    (a property map with the tenant), so the planner's index seek is not written twice;
    ``continued`` starts with ``AND`` (the rule follows other conditions)."""
    parts = [c.cypher.format(m=m) for c in CLAUSES if tenant or c.params != ("tenant",)]
    lines: list[str] = []
    for i, part in enumerate(parts):
        for j, line in enumerate(part.split("\n")):
            prefix = ("AND " if i or continued else "") if j == 0 else "    "
            lines.append(indent + prefix + line)
    return "\n".join(lines)


def cog_where(m: str = "m", indent: str = "", *, tenant: bool = True, continued: bool = False) -> None:
    """Called from the cog markers in cypher/recall/*.cypher: writes :func:`where` there."""
    import cog  # provided by cogapp while it runs

    cog.outl(where(m, indent, tenant=tenant, continued=continued))


# ---------------------------------------------------------------------------- the entity matcher
# Entities the question names: the tenant's entities whose key is one of $key_ngrams (every run of up to 8
# words of the question's entity key, kgmem.query.question.key_ngrams: an entity whose whole key occurs in the
# question as words is one of them), looked up by the (tenant, key) constraint — never through the entity_names
# fulltext index, which every tenant shares (its best 200 were every tenant's, so a tenant beside a big one lost
# matches) — and that are names: seen name-like in the memories (named_mentions) or written like a name in the
# question ($named_keys). Entities mentioned by more than $max_mentions memories are too broad to say anything.
# A null $key_ngrams skips the channel. Yields ``ents`` (a list of entity nodes).
# (cypher/_templates/entity_match.cypher.tmpl)

# The entity channel's memories: eligible memories mentioning the matched entities, by entities matched, then the
# newest; at most $depth. No cosine to the question: one for every memory of the matched entities cost more than
# the rest of the channel, the vector channels rank by meaning already, and LoCoMo's development half ranked the
# same either way (CHANGELOG.md, benchmark log). Yields
# ``entity`` (a list of {id, score: null}). In recall/candidates they are read only when 'entity' is in $channels: the call that runs the vector channels beside the one that
# runs the others matches the entities too (its candidates' maps say which they mention) but leaves this to it.
# (cypher/_templates/entity_memories.cypher.tmpl)


def entity_channel(gated: bool = False) -> str:
    """The entity channel as two CALL subqueries (match the entities, then their eligible memories; ``gated``:
    the memories only when 'entity' is in $channels)."""
    ents = template("entity_gate") if gated else "ents"
    body = template("entity_memories").replace("{ents}", ents).replace("{where}", where("m", "        ").lstrip())
    return template("entity_match") + "\n" + body


def cog_entity_channel(gated: bool = False) -> None:
    import cog

    cog.outl(entity_channel(gated))


# ---------------------------------------------------------------------------- the index channels
# One block per index channel of recall/candidates: the index's nearest (or best-matching) memories, the
# eligibility rule, the best $depth. A block runs only when its name is in $channels (else it yields nothing
# fetched and an empty list: recall(channels=...) runs only the channels it names). The same block for the memory's own vector or text and for its derived
# stream context (kgmem/derived/context.py); the standalone statements recall/vector and recall/keyword take
# the index as $index. Yields <name>_fetched, <name>_eligible and <name> (a list of {id, score}).
VECTOR_INDEXES = {
    "vector": "memory_embedding",
    "context_vector": "memory_context_embedding",
    "wide_vector": "memory_wide_embedding",
}
KEYWORD_INDEXES = {
    "keyword": "memory_text",
    "context_keyword": "memory_context_text",
    "window_keyword": "memory_window_text",
}
# the text property each fulltext index searches; each index also holds the memory's tenant, which the query
# requires (kgmem.query.lucene.tenant_scope); cypher/schema/05, 20 and 21 are written from these
# (:func:`fulltext_index_statement`)
KEYWORD_FIELDS = {"keyword": "text", "context_keyword": "context_text", "window_keyword": "window_text"}
FULLTEXT_TENANT_PROPERTY = "tenant"


def scoped_lucene(field: str | None = None) -> str:
    """The Cypher expression of a keyword channel's Lucene query: the tenant's required clause ($tenant_scope,
    weighing nothing: the scores stay the text's BM25), then the question's terms ($lucene) required in the text
    property ``field`` (None: the statement's $field) — Lucene then returns the tenant's memories only, and a
    tenant's fetch no longer grows with what other tenants hold. Null when $lucene is."""
    return template("scoped_lucene").format(field="' + $field + '" if field is None else field)


# The blocks (cypher/_templates): vector_block (5.26: the index has no filter, so it returns the $vector_fetch
# nearest of every tenant and the rule keeps the tenant's; $vector_exact — the tenant is so small a part of the
# index that the fetch it would take costs more than reading its memories, kgmem.query.plan.exact_due —
# scans the tenant's memories instead), vector_block_2026 (Neo4j 2026.x: the index itself keeps only the
# tenant's memories, the in-index conjuncts of the rule, through vector_search; the rest of the rule after it),
# keyword_block (Lucene's BM25 over the fulltext index, or — $given not null — the ranking a small tenant's own
# statistics gave, kgmem.query.own_keywords, read by id); each then eligible_tail (the rule over the fetched
# rows, the best $depth).


def vector_search(index: str, limit: str, indent: str = "") -> str:
    """The in-index filtered search of ``index`` (cypher/_templates/vector_search), at most ``limit`` nearest."""
    text = template("vector_search").format(index=index, in_index=in_index_where("m"), limit=limit)
    return "\n".join(indent + line if i else line for i, line in enumerate(text.split("\n")))


def channel_block(name: str, generation: str | None = None) -> str:
    """The CALL block of one index channel (``vector``, ``keyword``, ``context_vector``, ...), run only when
    ``$channels`` names it; ``generation`` ``v2026`` gives the vector channels' in-index filtered search of
    Neo4j 2026.x."""
    rule = where("row.m", "          ")
    if name in VECTOR_INDEXES:
        index = VECTOR_INDEXES[name]
        if generation == "v2026":
            search = vector_search(index, "$vector_search", "  ")
            block = template("vector_block_2026").format(name=name, search=search)
        else:
            block = template("vector_block").format(name=name, index=index, prop=VECTOR_INDEX_PROPERTY[index])
    else:
        query = scoped_lucene(KEYWORD_FIELDS[name])
        block = template("keyword_block").format(name=name, index=KEYWORD_INDEXES[name], query=query)
    return block + "\n" + template("eligible_tail").format(name=name, where=rule)


def cog_scoped_lucene() -> None:
    """recall/keyword: the Lucene query of the index named by $index, its text property $field."""
    import cog

    cog.outl(template("fulltext_by_index").format(query=scoped_lucene()))


def cog_channels(*names: str, generation: str | None = None) -> None:
    import cog

    cog.outl("\n".join(channel_block(n, generation) for n in names))


def cog_vector_search_by_index(limit: str = "$fetch") -> None:
    """recall/v2026/vector: one SEARCH per vector index, the one named by $index chosen (an index name in
    SEARCH is an identifier, never a parameter). Yields ``m``, ``score``."""
    import cog

    branches = []
    for index in VECTOR_INDEXES.values():
        branches.append(
            "  " + template("vector_search_branch").format(index=index, search=vector_search(index, limit, "  "))
        )
    cog.outl(template("vector_search_by_index").format(branches=("\n" + template("union_all") + "\n").join(branches)))


# ---------------------------------------------------------------------------- the vector indexes
# The vector indexes of cypher/schema: on Neo4j 2026.x (cypher/schema/v2026) they also carry the properties
# the in-index conjuncts need (WITH [m.tenant]); on 5.26 they cannot.
VECTOR_INDEX_PROPERTY = {
    "memory_embedding": "embedding",
    "memory_context_embedding": "context_embedding",
    "memory_wide_embedding": "wide_embedding",
    "memory_clause_embedding": "clause_embedding",  # a cause clause's vector (kgmem.derived.causal)
}


def cog_vector_property(m: str = "m", indent: str = "") -> None:
    """recall/vector_exact: the vector property named by $property (one of the channels' own,
    :data:`VECTOR_INDEXES` → :data:`VECTOR_INDEX_PROPERTY`), each read by its name (a dynamic ``m[$property]``
    read is slower); any other name reads nothing. Yields ``v``."""
    import cog

    props = [VECTOR_INDEX_PROPERTY[index] for index in VECTOR_INDEXES.values()]
    cases = "\n".join(f"{indent}  WHEN '{p}' THEN {m}.{p}" for p in props)
    cog.outl(f"{indent}WITH {m}, CASE $property\n{cases}\n{indent}END AS v")


def fulltext_index_statement(index: str) -> str:
    """The schema statement of a keyword channel's fulltext index (:data:`KEYWORD_INDEXES`): its text property
    (:data:`KEYWORD_FIELDS`) and the memory's tenant (:data:`FULLTEXT_TENANT_PROPERTY`), English analyser,
    read-your-writes — one source for cypher/schema and the properties the schema check expects."""
    prop = fulltext_index_properties()[index][0]
    return template("fulltext_index").format(index=index, prop=prop, tenant=FULLTEXT_TENANT_PROPERTY)


def fulltext_index_properties() -> dict[str, list[str]]:
    """Each keyword channel's fulltext index → the properties it covers (its text, then the tenant)."""
    return {index: [KEYWORD_FIELDS[name], FULLTEXT_TENANT_PROPERTY] for name, index in KEYWORD_INDEXES.items()}


def cog_fulltext_index(index: str) -> None:
    import cog

    cog.outl(fulltext_index_statement(index))


def vector_index_statement(index: str, generation: str | None = None) -> str:
    with_ = ""
    if generation == "v2026":
        with_ = template("vector_index_with").format(properties=", ".join(f"m.{p}" for p in VECTOR_FILTER_PROPERTIES))
    return template("vector_index").format(index=index, prop=VECTOR_INDEX_PROPERTY[index], with_=with_)


def cog_vector_index(index: str, generation: str | None = None) -> None:
    import cog

    cog.outl(vector_index_statement(index, generation))


# ---------------------------------------------------------------------------- what a hit shows
# One map per hit, the same in recall/candidates and recall/details, parsed once into its type
# (kgmem.query.rows: CandidateMap, PoolMap, HitMap): times as [epoch seconds, nanoseconds] (cheaper to decode on the hot path),
# how many recorded causes it has (for why) and the normalised cosine of the question to it.
# ``mentions`` lists which of the question's entities (their keys: ``{keys}``) the memory mentions, for the
# entity boost of the fusion; ``names`` up to 8 of the names it mentions (entities seen name-like), for the
# confidence's attribution (who a memory is about: kgmem.query.meaning); ``topic_similarity`` the cosine to
# $topic_vector, the question with its names left out (null when it names no one: then ``similarity`` is it),
# for the confidence's topic. ``superseded_by`` lists the newer memories that retired it (SUPERSEDES: a slot's
# version chain, or inferred from plain text by kgmem.derived.supersession; and the record whose compiled fact
# replaced a fact compiled from this one, its slot's newer version) and that the query may see (the
# same rule: as of ``$at``, a memory written later does not count), for recall's currency step.
# ``$known`` maps ids to the cosine to $vector a channel already scored (the vector and entity channels: the
# same normalised value): read, not computed again — reading a memory's 384 floats was about half of recall/details.
# (cypher/_templates/hit_map.cypher.tmpl)


# What recall/candidates returns of every candidate: what the fusion's boosts read (time, the question's entities
# it mentions, its text for a name it writes) and what chooses the candidates whose full hit map is read next
# (recall/details: the best 2k and the 60 the confidence reads). A full map for every candidate cost about half
# of the statement, its three cosines above all (CHANGELOG.md, benchmark log).
# (cypher/_templates/candidate_map.cypher.tmpl)


def one_line_where(m: str) -> str:
    """The rule over ``m`` on one line (inside a pattern comprehension)."""
    return " AND ".join(" ".join(c.cypher.format(m=m).split()) for c in CLAUSES)


def _cog_lines(lines: list[str], indent: str, suffix: str) -> None:
    import cog

    cog.outl("\n".join(indent + line for line in lines) + suffix)


# What recall/details returns of a candidate the confidence reads (one of the 60 best by unboosted score) that is
# not among the best 2k: the names it mentions and its cosine to the question without its names (to the question
# when it names no one) — not the full map's other cosines, causes and retirements.
# (cypher/_templates/pool_map.cypher.tmpl)


def cog_details_map(indent: str = "", suffix: str = "", keys: str = "$entity_keys") -> None:
    """recall/details' map: the full hit map for the ids of ``$full`` (all when it is null), else the pool map."""
    full = template("hit_map").format(keys=keys, retiring=one_line_where("s")).split("\n")
    pool = template("pool_map").format(keys=keys).split("\n")
    case = template("details_case").format(
        full="\n".join("  " + x for x in full), pool="\n".join("  " + x for x in pool)
    )
    _cog_lines(case.split("\n"), indent, suffix)


def cog_candidates_tail() -> None:
    """recall/candidates after its channels, in every generation: which candidates get a map, the maps
    (cypher/_templates/candidate_map.cypher.tmpl) and the row (cypher/_templates/candidates_tail.cypher.tmpl)."""
    maps = "\n".join("  " + line for line in template("candidate_map").format(keys="ent_keys").split("\n"))
    _cog_lines(template("candidates_tail").format(candidate_map=maps).split("\n"), "", "")


def regenerate(check: bool = False) -> int:
    """Expand every cog block under cypher/ (``check``: only report whether they are up to date)."""
    from pathlib import Path

    from cogapp import Cog

    root = Path(__file__).resolve().parents[2] / "cypher"
    files = sorted(str(p) for p in root.rglob("*.cypher") if "[[[cog" in p.read_text(encoding="utf-8"))
    args = ["cog", "--check" if check else "-r", *(["--verbosity=1"] if check else ["--verbosity=0"]), *files]
    return int(Cog().main(args))
