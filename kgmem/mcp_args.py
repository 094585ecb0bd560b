"""The MCP tools' arguments: what each one means (a description on every argument, published in the tools'
input schemas), and how a call with wrong arguments is answered.

:func:`strict_tool` registers a tool function the way the SDK does, and then

- refuses an argument the tool does not take, by name (the schema says ``additionalProperties: false``): an
  agent that sends ``tenant`` learns that the server's configuration fixes the tenant, rather than reading
  another tenant's answer it did not get;
- answers a wrong, missing or unknown argument with kgmem's one line, ``Error: field 'k': must be an integer,
  got "lots" Fix: give k as an integer.``, instead of pydantic's several lines and links;
- gives a kgmem error (an :class:`~kgmem.errors.KgmemError` the tool turned into a ToolError) as the CLI
  prints it, without the SDK's ``Error executing tool ...:`` in front;
- validates strictly: ``k: "5"`` or ``k: true`` is not an integer (pydantic's lax mode took both).

A JSON object with a key given twice is what the JSONL path refuses (JSON does not say which one wins), but the
SDK's parser keeps the last one silently: :func:`mark_duplicate_keys` reads each incoming message first (the
server's transports call it) and marks such a record of ``ingest`` (an error for its line, as in a file) or such
``arguments`` (a tool error).
"""

from __future__ import annotations

import difflib
import inspect
import json
from types import MappingProxyType
from typing import Annotated, Any, Callable, Literal, cast

from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations
from pydantic import ConfigDict, Field, ValidationError, WithJsonSchema

from .api import MemoryGraph
from .config import DEFAULT_AROUND, DEFAULT_CHANGES, DEFAULT_HITS, DEFAULT_MENTIONS, DEFAULT_NEIGHBOURS, DEFAULT_ROOTS
from .errors import InputError, KgmemError
from .record_spec import SPEC
from .validate import MAX_AROUND, MAX_CHANGES, MAX_EXPAND, MAX_HITS, MAX_MENTIONS, MAX_NEIGHBOURS, MAX_QUERY, short

TIME = "RFC 3339 timestamp or a date (2026-03-01)"
_RECORD = MemoryGraph.record_schema()


def _record_field(name: str) -> str:
    return str(_RECORD["properties"][name]["description"])


# ---------------------------------------------------------------------------- what the tools do to the world

# every tool works on the server's one graph (a closed world); reads change nothing, so asking again is safe
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# writes add memories; an identical record sent again changes nothing (its id or its content key)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# forget deletes a memory and what was derived from it; forgetting it again changes nothing more
FORGET = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


# ---------------------------------------------------------------------------- the arguments, described

Query = Annotated[
    str,
    Field(description=f"What to look for, in plain words: a question or keywords (at most {MAX_QUERY} characters)."),
]
Hits = Annotated[int, Field(description=f"How many memories to return, 1 to {MAX_HITS} (default {DEFAULT_HITS}).")]
AsOf = Annotated[
    str | None,
    Field(
        description=f"Answer as of this time ({TIME}): only what had happened by then, current as of then. "
        "Default: now."
    ),
]
IncludeSuperseded = Annotated[
    bool,
    Field(
        description="Also return memories a newer one replaced (a slot's older versions, retired statements). "
        "Default false."
    ),
]
UserScope = Annotated[str | None, Field(description="Only memories of this user scope inside the tenant.")]
RecallSince = Annotated[str | None, Field(description=f"Only memories that happened at or after this time ({TIME}).")]
RecallUntil = Annotated[str | None, Field(description=f"Only memories that happened before this time ({TIME}).")]
Expand = Annotated[
    int,
    Field(
        description=f"Attach this many stream neighbours (NEXT) on each side to every hit as its 'context', 0 to "
        f"{MAX_EXPAND} (default 0)."
    ),
]
Explain = Annotated[
    bool,
    Field(description="Add 'explain': the filters, each channel's candidates and the fused ranks. Default false."),
]
Symptom = Annotated[
    str, Field(description='What happened, to explain, in plain words, e.g. "why did checkout crash on Friday?".')
]
Roots = Annotated[int, Field(description=f"How many root causes to return, best first (default {DEFAULT_ROOTS}).")]
CausesBy = Annotated[str | None, Field(description=f"Only causes known to have happened by this time ({TIME}).")]
Subject = Annotated[str, Field(description="Whose fact: the subject, e.g. maya.")]
Predicate = Annotated[
    str,
    Field(
        description="Which attribute, e.g. lives_in. An alias maps to its canonical name; the vocabulary tool "
        "lists both. A name outside the vocabulary answers nothing, with a hint."
    ),
]
SlotObject = Annotated[
    str | None,
    Field(
        description="For a multi-valued predicate (cardinality many, e.g. likes): which value's slot to ask "
        "about, e.g. diet coke. Not used for a single-valued one."
    ),
]
When = Annotated[str, Field(description=f"The time to ask about ({TIME}).")]
Since = Annotated[
    str,
    Field(
        description=f'List what took effect since this time ({TIME}), or a phrase such as "April 15" or "last week".'
    ),
]
Limit = Annotated[
    int, Field(description=f"At most this many versions, 1 to {MAX_CHANGES} (default {DEFAULT_CHANGES}).")
]
MemoryId = Annotated[str, Field(description="The memory's id (as remember, ingest or recall returned it).")]
Before = Annotated[
    int, Field(description=f"How many memories before it, 0 to {MAX_AROUND} (default {DEFAULT_AROUND}).")
]
After = Annotated[int, Field(description=f"How many memories after it, 0 to {MAX_AROUND} (default {DEFAULT_AROUND}).")]
EntityName = Annotated[
    str,
    Field(
        description="The entity's name, e.g. Maya or Acme Corp (case, accents, punctuation and a leading 'the' do "
        "not matter)."
    ),
]
MentionLimit = Annotated[
    int,
    Field(description=f"At most this many memories, newest first, 1 to {MAX_MENTIONS} (default {DEFAULT_MENTIONS})."),
]
NeighbourLimit = Annotated[
    int,
    Field(
        description=f"At most this many memories in each list (causes, effects, ...), 1 to {MAX_NEIGHBOURS} "
        f"(default {DEFAULT_NEIGHBOURS}); counts has the full numbers."
    ),
]
StreamName = Annotated[
    str,
    Field(
        description="The stream to forget, as the memories' 'stream' field gives it (a conversation, a channel, "
        "a chat export's stream; a document's passages are in the stream named by the document's id)."
    ),
]
Question = Annotated[str, Field(description='A question in plain words, e.g. "where does Maya live?".')]
AskNow = Annotated[
    str | None, Field(description=f'The time that words like "last week" count from ({TIME}). Default: now.')
]
Match = Annotated[
    str | None,
    Field(
        description="Only the predicates whose name, an alias or the description contains this text "
        "(case-insensitive), e.g. live. Default: all of them."
    ),
]
Records = Annotated[
    list[Any],
    WithJsonSchema({"type": "array", "items": _RECORD}),
    Field(
        description="The memory records to store, each an object with the fields of a JSONL memory record "
        "(text is required). A bad record is an error for its line (its 1-based position) in the report; "
        "the others still land."
    ),
]

DocumentText = Annotated[
    str,
    Field(
        description="The whole document (markdown or plain text, any length): it is stored as one document memory "
        "and its passages, cut at blank lines and headings, each a part of the document."
    ),
]
DocumentName = Annotated[
    str,
    Field(
        description="The document's file name, e.g. notes.md: it names the document (with its title) and its id; "
        "the same name and text again change nothing."
    ),
]
DocumentFormat = Annotated[
    Literal["markdown", "text"],
    Field(description="markdown (headings and code blocks are read as such) or text. Default: markdown."),
]

RecordUser = Annotated[str | None, Field(description=_record_field("user"))]

# a JSON type -> the Python type pydantic publishes as it (a choice of strings: a string)
_PYTHON = MappingProxyType({"string": str, "boolean": bool, "number": float, "array": list[str]})


def remember_parameters() -> list[inspect.Parameter]:
    """The remember tool's arguments: the record fields the MCP face takes (:data:`kgmem.record_spec.SPEC`,
    ``mcp``), in the record's order, each typed by its JSON schema and described by it; text is required, the
    others default to None (not given)."""
    out = []
    for name, spec in SPEC.items():
        if not spec.mcp:
            continue
        kind: Any = _PYTHON[spec.json_type]
        required = name == "text"
        described: Any = Annotated[kind if required else kind | None, Field(description=_record_field(name))]
        default = inspect.Parameter.empty if required else None
        out.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=described))
    return out


# ---------------------------------------------------------------------------- the strict tool


def error_text(exc: KgmemError) -> str:
    """The CLI's one-line error (``Error: ... Fix: ....``) for a kgmem error."""
    fix = f" Fix: {exc.fix}." if exc.fix else ""
    return f"Error: {' '.join(exc.message.split())}{fix}"


class StrictTool(Tool):
    """A tool whose argument errors are kgmem's one line (see the module docstring)."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        if isinstance(arguments, dict) and DUPLICATE in arguments:
            key = short(str(arguments[DUPLICATE]), 40)
            raise ToolError(
                error_text(InputError(f"key '{key}' appears twice in the arguments", fix="give each argument once"))
            )
        try:
            return await super().run(arguments, context, convert_result)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(argument_error(self.name, self.parameters, cause)) from cause
            if isinstance(cause, ToolError) and isinstance(cause.__cause__, KgmemError):
                raise cause from cause.__cause__  # already the CLI's line
            raise


def strict_tool(fn: Callable[..., Any], annotations: ToolAnnotations, output_schema: dict[str, Any]) -> StrictTool:
    """``fn`` as a tool (as ``@server.tool()`` would make it) that refuses the arguments it does not take, and
    publishes ``output_schema`` (the JSON schema of what it returns, :mod:`kgmem.results`) as its
    ``outputSchema`` instead of the bare object its ``dict`` return annotation gives."""
    tool = cast(StrictTool, StrictTool.from_function(fn, annotations=annotations))
    tool.fn_metadata.output_schema = output_schema
    loose = tool.fn_metadata.arg_model
    config = ConfigDict(extra="forbid", strict=True)  # strict: "5" and true are not integers
    strict: Any = type(loose.__name__, (loose,), {"model_config": config, "__module__": __name__})
    tool.fn_metadata.arg_model = strict
    tool.parameters = strict.model_json_schema(by_alias=True)
    return tool


def argument_error(tool: str, schema: dict[str, Any], exc: ValidationError) -> str:
    """Every problem pydantic found with a call's arguments, on one line: each names its argument, then the fix
    (with the tool's argument names when one was missing or unknown)."""
    props: dict[str, Any] = schema.get("properties", {})
    errors = exc.errors(include_url=False)
    problems = [_problem(tool, props, err) for err in errors]
    message = "; ".join(f"field '{name}': {what}" for name, what, _ in problems)
    fixes = list(dict.fromkeys(fix for _, _, fix in problems))
    if any(err["type"] in ("missing", "extra_forbidden") for err in errors):
        fixes.append(f"{tool} takes {', '.join(props)}")
    return error_text(KgmemError(message, fix="; ".join(fixes)))


def _problem(tool: str, props: dict[str, Any], err: Any) -> tuple[str, str, str]:
    """(the argument, what is wrong with it, the fix) for one pydantic error."""
    loc = [str(p) for p in err["loc"]]
    name = short(".".join(loc), 40)
    if err["type"] == "missing":
        return name, "is required", f"give {name} ({_expected(props.get(name)) or 'a value'})"
    if err["type"] == "extra_forbidden":
        if name == "tenant":
            return (
                name,
                f"is not an argument of {tool}: the server's configuration fixes the tenant",
                "drop it (another tenant needs its own server: kgmem mcp --tenant NAME)",
            )
        guess = difflib.get_close_matches(loc[0], list(props), n=1)
        return name, f"is not an argument of {tool}", f"did you mean '{guess[0]}'?" if guess else "drop it"
    expected = _expected(_at(props, err["loc"]))
    if expected is None:  # a shape the schema does not spell out: pydantic's own words, on one line
        return name, " ".join(str(err["msg"]).split()), f"see the {tool} tool's input schema"
    return name, f"must be {expected}, got {_shown(err.get('input'))}", f"give {name} as {expected}"


def _at(props: dict[str, Any], loc: tuple[Any, ...]) -> dict[str, Any] | None:
    """The schema of the argument (or the part of it) at ``loc``."""
    node: Any = props.get(str(loc[0]))
    for part in loc[1:]:
        node = _non_null(node)
        if node is None:
            return None
        node = node.get("items") if isinstance(part, int) else node.get("properties", {}).get(part)
    return node if isinstance(node, dict) else None


def _non_null(node: Any) -> dict[str, Any] | None:
    if not isinstance(node, dict):
        return None
    options = [o for o in node.get("anyOf", [node]) if o.get("type") != "null"]
    return options[0] if len(options) == 1 else None


_WORDS = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false"}
_PLURAL = {"string": "strings", "integer": "integers", "number": "numbers", "object": "objects"}


def _expected(node: Any) -> str | None:
    """The schema's type in words: "an integer", "a list of strings", "true or false"."""
    node = _non_null(node)
    if node is None:
        return None
    kind = node.get("type")
    if kind == "array":
        items = _non_null(node.get("items")) or {}
        return f"a list of {_PLURAL[items['type']]}" if items.get("type") in _PLURAL else "a list"
    if kind == "object":
        return "an object"
    return _WORDS.get(kind)


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return short(text, 40)


# ---------------------------------------------------------------------------- keys given twice

DUPLICATE = "\u0000kgmem: a key given twice"  # marks what held one (no client field can be named so: NUL)


class _Twice(dict[str, Any]):
    """A JSON object in which ``key`` was given twice (holding the last value, as json.loads would)."""

    key: str = ""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    twice = None
    for k, v in pairs:
        if k in out and twice is None:
            twice = k
        out[k] = v
    if twice is None:
        return out
    marked = _Twice(out)
    marked.key = twice
    return marked


def _twice(value: Any) -> str | None:
    """The first key given twice anywhere in ``value``, or None."""
    if isinstance(value, _Twice):
        return value.key
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        found = _twice(child)
        if found is not None:
            return found
    return None


def mark_duplicate_keys(raw: str | bytes) -> str | bytes | None:
    """A JSON-RPC message (or batch) with every key given twice in a ``tools/call`` marked: such a record of
    ``ingest`` becomes ``{DUPLICATE: key}`` (its line's error), such ``arguments`` become ``{DUPLICATE: key}``
    (a tool error). None when nothing is marked (the message goes on as it came); a message that is not JSON
    is left to the SDK."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if text.count('"') < 4:
        return None
    try:
        message = json.loads(text, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        return None
    if _twice(message) is None:
        return None
    marked = False
    for call in message if isinstance(message, list) else [message]:
        if not isinstance(call, dict) or call.get("method") != "tools/call" or not isinstance(call.get("params"), dict):
            continue
        params: dict[str, Any] = call["params"]
        args = params.get("arguments")
        if not isinstance(args, dict) or _twice(args) is None:
            continue
        records = args.get("records")
        if params.get("name") == "ingest" and not isinstance(args, _Twice) and isinstance(records, list):
            for i, record in enumerate(records):
                key = _twice(record)
                if key is not None:
                    records[i] = {DUPLICATE: key}
        key = _twice(args)
        if key is not None:
            params["arguments"] = {DUPLICATE: key}
        marked = True
    if not marked:
        return None
    out = json.dumps(message, ensure_ascii=False)
    return out.encode("utf-8") if isinstance(raw, bytes) else out


def tool_records(records: list[Any], tenant: str) -> list[Any]:
    """``ingest``'s records as the write path takes them: a record marked by :func:`mark_duplicate_keys` is the
    error the JSONL path gives for its line. A record naming another tenant refuses the whole call (an
    InputError: nothing is written), since the server's configuration fixes the tenant."""
    from .ingest.records import FIELDS

    out: list[Any] = []
    for n, record in enumerate(records, start=1):
        if isinstance(record, dict) and isinstance(record.get("tenant"), str) and record["tenant"].strip() != tenant:
            raise InputError(
                f"names tenant '{short(record['tenant'])}', but this server serves tenant '{tenant}'; nothing was "
                "written",
                field="tenant",
                line=n,
                fix="drop the field (records go to the server's tenant); another tenant needs its own server: "
                "kgmem mcp --tenant NAME",
            )
        if isinstance(record, dict) and len(record) == 1 and DUPLICATE in record:
            key = short(str(record[DUPLICATE]), 40)
            record = InputError(
                f"key '{key}' appears twice in one object",
                field=key if key in FIELDS else None,
                fix="give each field once",
            )
        out.append(record)
    return out
