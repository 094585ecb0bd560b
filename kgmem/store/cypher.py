"""Loads the Cypher statements in ``cypher/`` by name.

Each ``cypher/<group>/<name>.cypher`` file holds one statement. Its header is ``//`` comment lines
(``// name:``, ``// params:``, ``// returns:`` and free text) followed by ``:param`` lines that make the file
paste-and-run in Neo4j Browser; the loader keeps only the statement. Queries are addressed as
``"group/name"``. The files are the single home of kgmem's Cypher: Python never builds Cypher text.

Where a server generation needs other Cypher (Neo4j 2026.x's in-index filtered vector search), the variant
lives beside the statement as ``cypher/<group>/<generation>/<name>.cypher`` (for example
``recall/v2026/vector``) with the same parameters; :class:`~kgmem.store.Store` runs the variant of the
generation it detected on its server (:func:`variant`), the base statement everywhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_PARAM_LINE = re.compile(r"^:param\s+(?:\{\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:=>|:)\s*(.*?)\s*;?\s*\}?\s*$")
_USED_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Query:
    name: str
    text: str  # the statement only, as sent to the driver
    source: str  # the whole file, as printed by `kgmem cypher NAME`
    params: tuple[str, ...]  # $names the statement uses
    example_params: tuple[tuple[str, str], ...]  # (name, Cypher expression) from the :param lines
    returns: str
    summary: str
    path: Path


def cypher_root() -> Path:
    """The cypher/ directory: the installed copy inside the package (``kgmem/_cypher``, put there by the
    wheel build, see setup.py), else the repository's ``cypher/`` (a checkout or an editable install)."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "_cypher", package.parent / "cypher"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"kgmem's Cypher files are in neither {package / '_cypher'} nor {package.parent / 'cypher'}; "
        "reinstall kgmem from a wheel built by `pip wheel .`, or run from a checkout"
    )


def parse(name: str, source: str, path: Path) -> Query:
    header: dict[str, str] = {}
    examples: list[tuple[str, str]] = []
    body: list[str] = []
    summary_lines: list[str] = []
    for line in source.splitlines():
        stripped = line.strip()
        if not body and stripped.startswith("//"):
            content = stripped[2:].strip()
            m = re.match(r"^(name|params|returns):\s*(.*)$", content)
            if m:
                header[m.group(1)] = m.group(2)
            elif content:
                summary_lines.append(content)
            continue
        if not body and stripped.startswith(":param"):
            m = _PARAM_LINE.match(stripped)
            if not m:
                raise ValueError(f"{path}: cannot read ':param' line {stripped!r}")
            examples.append((m.group(1), m.group(2)))
            continue
        if not body and not stripped:
            continue
        body.append(line)
    text = "\n".join(body).strip().rstrip(";").strip()
    if not text:
        raise ValueError(f"{path}: no statement after the header")
    if ";" in _strip_strings(text):
        raise ValueError(f"{path}: one statement per file (found ';' inside the statement)")
    if header.get("name") and header["name"] != name:
        raise ValueError(f"{path}: header says name {header['name']!r}, file is {name!r}")
    used = tuple(dict.fromkeys(_USED_PARAM.findall(_strip_strings(text))))
    return Query(
        name=name,
        text=text,
        source=source,
        params=used,
        example_params=tuple(examples),
        returns=header.get("returns", ""),
        summary=" ".join(summary_lines),
        path=path,
    )


def _strip_strings(text: str) -> str:
    """The statement with string literals and comments blanked (so ';' or '$' inside them do not count)."""
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", text)


def _safe_name(name: str) -> bool:
    """A statement name is ``group/name`` inside cypher/: relative, no ``..`` part, no backslash or NUL."""
    if not isinstance(name, str) or not name or "\x00" in name or "\\" in name or ":" in name:
        return False
    if name.startswith(("/", "~")):
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


@cache
def load(name: str) -> Query:
    root = cypher_root()
    if not _safe_name(name):
        raise KeyError(f"{name!r} is not a statement name (a relative group/name inside {root}, without '..')")
    path = root / f"{name}.cypher"
    try:
        inside = path.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        inside = False
    if not inside or not path.is_file():
        raise KeyError(f"no Cypher file {name!r} in {root} (names: {', '.join(names()[:8])}, ...)")
    return parse(name, path.read_text(encoding="utf-8"), path)


def names() -> list[str]:
    root = cypher_root()
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher"))


# server generations that have statement variants, newest first (kgmem.store.server.ServerInfo.generation)
GENERATIONS = ("v2026",)


def generation_of(name: str) -> str | None:
    """The generation a statement name is a variant for (``recall/v2026/vector`` -> ``v2026``), else None."""
    parts = name.split("/")
    return parts[1] if len(parts) >= 3 and parts[1] in GENERATIONS else None


def base_of(name: str) -> str:
    """The statement a variant stands in for (``recall/v2026/vector`` -> ``recall/vector``)."""
    if generation_of(name) is None:
        return name
    group, _, *rest = name.split("/")
    return "/".join([group, *rest])


@cache
def variants() -> dict[str, dict[str, str]]:
    """{base statement: {generation: variant name}} for every statement that has a variant."""
    out: dict[str, dict[str, str]] = {}
    for n in names():
        gen = generation_of(n)
        if gen is not None:
            out.setdefault(base_of(n), {})[gen] = n
    return out


def variant(name: str, generation: str | None) -> str:
    """The statement to run for ``name`` on a server of ``generation``: its variant there, else ``name``."""
    if generation is None:
        return name
    return variants().get(name, {}).get(generation, name)


def base_names() -> list[str]:
    """Every statement that is not a generation's variant."""
    return [n for n in names() if generation_of(n) is None]


def all_queries() -> list[Query]:
    return [load(n) for n in names()]
