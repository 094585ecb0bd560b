"""The one spec of a memory record (contract §1): its fields, in order, each with what every face makes of it.

The form: :class:`RecordFields`, a ``TypedDict`` whose every field is ``Annotated`` with a frozen
:class:`Field` (the field's JSON schema and how each face takes it), and :data:`TEXT`, the one required field.
Not a frozen dataclass or a pydantic model, because a TypedDict is the one form that is at once a list a
program reads (``typing.get_type_hints``) and the type mypy checks ``MemoryGraph.remember``'s callers against
(``**fields: Unpack[RecordFields]``): remember's signature is the spec itself, not a copy of it. (pydantic is
no direct dependency of kgmem either: it comes with the MCP SDK.) ``text`` stands apart because remember takes
it positionally; it comes first wherever the fields are listed.

Made from it (:data:`SPEC`):

- the JSONL parser's field list and its length limits, and the record's JSON schema
  (:mod:`kgmem.ingest.records`, ``MemoryGraph.record_schema()``, the MCP ``ingest`` tool's records);
- ``MemoryGraph.remember``'s keyword arguments (:mod:`kgmem.api.writing`);
- the MCP ``remember`` tool's arguments (:func:`kgmem.mcp_args.remember_parameters`): the fields whose
  :attr:`Field.mcp` is true, typed by their JSON schema and described by it;
- ``kgmem remember``'s options (:mod:`kgmem.cli.memory_cmd`): each field's :attr:`Field.cli`;
- the record fields a returned memory carries when set (:class:`kgmem.results.Memory`, ``MEMORY_SCHEMA``):
  each field's :attr:`Field.result`.

tests/unit/test_record_spec.py fails when a face drifts from it (that also covers what cannot be made from it:
the parsed :class:`~kgmem.ingest.records.Record`, the rows ``cypher/ingest/write_memories.cypher`` writes and
the graph's typed classes, :mod:`kgmem.store.models`).
"""

import datetime as dt
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Literal, Mapping, TypedDict, get_args, get_type_hints

from .validate import (
    MAX_ENTITIES,
    MAX_ENTITY_NAME,
    MAX_ID,
    MAX_OBJECT,
    MAX_SLOT_PART,
    MAX_TEXT,
    MAX_USER,
)

KINDS = ("episode", "fact", "summary")
# the one definition of the retention classes (kgmem.derived.retention gives them their TTLs)
RETENTION_CLASSES = ("permanent", "standard", "short", "ephemeral")

MAX_TENANT = 200
MAX_STREAM = 500
MAX_SOURCE = 2000
MAX_LIST = 1000  # entries of entities / caused_by
_TIME = 'an RFC 3339 timestamp ("2026-03-03T09:30:00Z") or a date ("2026-03-03", midnight UTC)'


@dataclass(frozen=True)
class Option:
    """A field as an option of ``kgmem remember``: click's declarations (the parameter is named as the field)
    and help; a field with an ``enum`` is a choice of it."""

    decls: tuple[str, ...]
    help: str
    flag: bool | None = None  # a flag: the field's value when it is given (--negated: polarity false)
    multiple: bool = False  # repeatable: the values given, as a list

    def value(self, given: Any) -> Any:
        """The field's value (None: not given) from what click parsed."""
        if self.flag is not None:
            return self.flag if given else None
        if self.multiple:
            return list(given) or None
        return given


@dataclass(frozen=True)
class Field:
    """One record field: its JSON schema, and how the faces that differ take it."""

    schema: Mapping[str, Any]
    # kgmem remember: an Option; the name of the command's option that gives it otherwise ("TEXT" its argument,
    # "--user" the owner, "--tenant" the connection's); None: not on the CLI (a JSONL record gives it)
    cli: Option | str | None = None
    mcp: bool = True  # the MCP remember tool takes it (the server fixes the tenant; ingest takes every field)
    # a returned memory has it when set: its description there (MEMORY_SCHEMA; "" none). None: left out (id,
    # text, at and kind are always there, kgmem.results says how)
    result: str | None = None
    # how the write stores it: a :Memory property of its name (cypher/ingest/write_memories.cypher), the
    # memory's key (MERGE), or an edge (MENTIONS, CAUSED_BY, DERIVED_FROM)
    stored: Literal["property", "key", "edge"] = "property"

    @property
    def json_type(self) -> str:
        """The JSON type of its value (a choice is a string)."""
        return str(self.schema.get("type", "string"))

    @property
    def max_length(self) -> int | None:
        """The longest value (a list: the longest entry) the schema allows."""
        limit = self.schema.get("maxLength", self.schema.get("items", {}).get("maxLength"))
        return None if limit is None else int(limit)


def _text(description: str, max_len: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_len, "description": description}


def _names(description: str, max_len: int, max_items: int = MAX_LIST) -> dict[str, Any]:
    items = {"type": "string", "minLength": 1, "maxLength": max_len}
    return {"type": "array", "items": items, "maxItems": max_items, "description": description}


TEXT = Field({**_text("What was observed, said or decided.", MAX_TEXT), "minLength": 1}, cli="TEXT")


class RecordFields(TypedDict, total=False):
    """A memory record's fields after ``text``, in order (None: not given)."""

    id: Annotated[
        str | None,
        Field(
            _text(
                "Your stable id for the memory. Absent: a content key; sending an identical record again changes "
                "nothing.",
                MAX_ID,
            ),
            cli=Option(("--id",), "Your stable id for it."),
            stored="key",
        ),
    ]
    at: Annotated[
        str | dt.datetime | dt.date | None,
        Field(
            {"type": "string", "description": f"When it happened or was said: {_TIME}. Absent: now."},
            cli=Option(("--at",), "When it happened (RFC 3339 or a date). Default: now."),
        ),
    ]
    kind: Annotated[
        str | None,
        Field(
            {
                "enum": list(KINDS),
                "description": "episode (the default), fact (the default when subject, predicate and object are "
                "given) or summary.",
            },
            cli=Option(("--kind",), "Default: episode (fact if -s/-p/-o)."),
        ),
    ]
    subject: Annotated[
        str | None,
        Field(
            _text("A fact's subject, e.g. maya (subject, predicate and object: all three or none).", MAX_SLOT_PART),
            cli=Option(("-s", "--subject"), "Fact subject (with -p and -o)."),
            result="a fact's subject",
        ),
    ]
    predicate: Annotated[
        str | None,
        Field(
            _text(
                "A fact's predicate, e.g. lives_in; an alias maps to the vocabulary's canonical name.", MAX_SLOT_PART
            ),
            cli=Option(("-p", "--predicate"), "Fact predicate; aliases map to the vocabulary's canonical name."),
            result="a fact's predicate",
        ),
    ]
    object: Annotated[
        str | None,
        Field(
            _text("A fact's value, e.g. Lisbon.", MAX_OBJECT),
            cli=Option(("-o", "--object"), "Fact value."),
            result="a fact's value",
        ),
    ]
    polarity: Annotated[
        bool | None,
        Field(
            {
                "type": "boolean",
                "default": True,
                "description": 'false: the fact is negated or retracted ("I don\'t like diet coke anymore").',
            },
            cli=Option(("--negated",), "The fact is negated (polarity false).", flag=False),
            result="false: a negated fact",
        ),
    ]
    entities: Annotated[
        list[str] | None,
        Field(
            _names(
                f"Entity names the memory mentions (at most {MAX_ENTITIES}, each linked). Absent: extracted from "
                f"the text (the first {MAX_ENTITIES} names found are linked).",
                MAX_ENTITY_NAME,
                MAX_ENTITIES,
            ),
            cli=Option(("--entity",), "Entity it mentions (repeatable; default: extracted).", multiple=True),
            stored="edge",
        ),
    ]
    caused_by: Annotated[
        list[str] | None,
        Field(
            _names("Ids of the memories that caused this one (in the store or in the same batch).", MAX_ID),
            cli=Option(("--caused-by",), "Id of a memory that caused this one (repeatable).", multiple=True),
            stored="edge",
        ),
    ]
    stream: Annotated[
        str | None,
        Field(
            _text(
                "The sequence it belongs to (a conversation, log or incident channel); memories of one stream are "
                "linked in time order.",
                MAX_STREAM,
            ),
            cli=Option(("--stream",), "Stream (conversation, channel) it belongs to."),
            result="",
        ),
    ]
    source: Annotated[
        str | None,
        Field(
            _text("Where it came from (provenance).", MAX_SOURCE),
            cli=Option(("--source",), "Provenance (where it came from)."),
            result="",
        ),
    ]
    confidence: Annotated[
        float | None,
        Field(
            {"type": "number", "minimum": 0, "maximum": 1, "description": "How sure the source is, 0 to 1."},
            result="",
        ),
    ]
    tenant: Annotated[
        str | None,
        Field(
            _text(
                "The graph's tenant decides: a record may repeat it; a record naming another tenant is refused.",
                MAX_TENANT,
            ),
            cli="--tenant",
            mcp=False,
            stored="key",
        ),
    ]
    user: Annotated[
        str | None,
        Field(_text("A user scope inside the tenant.", MAX_USER), cli="--user", result="the owner inside the tenant"),
    ]
    part_of: Annotated[
        str | None,
        Field(
            _text(
                "The id of the memory this one is a part of (a document's passage: kgmem ingest FILE.md); "
                "forgetting that memory forgets this one. It must be in the store or in the same input.",
                MAX_ID,
            ),
            mcp=False,
            stored="edge",
        ),
    ]
    retention: Annotated[
        str | None,
        Field({"enum": list(RETENTION_CLASSES), "description": "How long the memory is kept."}, mcp=False),
    ]


def _spec() -> Mapping[str, Field]:
    hints = get_type_hints(RecordFields, include_extras=True)
    return MappingProxyType({"text": TEXT, **{name: get_args(hint)[1] for name, hint in hints.items()}})


SPEC = _spec()  # every field, text first: its Field
