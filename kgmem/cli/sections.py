"""``kgmem --help`` in sections, as people use the commands, instead of one alphabetical list.

:class:`SectionedGroup` is the top-level click group: ``sections`` names each section's commands in the order
they are listed; ``kgmem --help``, shell completion and docs/cli.md (scripts/gen_cli_docs.py) follow it. A
command listed in ``available`` is shown only where its predicate says it can run (``bench`` needs a clone of
the repository); it stays callable everywhere, and says why it cannot run.
"""

from __future__ import annotations

from typing import Callable

import click

# the sections of `kgmem --help`, each with its commands in the order a user meets them
SECTIONS: list[tuple[str, list[str]]] = [
    ("Remember", ["remember", "ingest", "demo"]),
    ("Ask", ["recall", "ask", "now", "as-of", "history", "changes"]),
    ("Walk the graph", ["why", "timeline", "neighbourhood", "mentions", "lineage", "cypher"]),
    ("Lifecycle", ["forget", "forget-stream", "gc", "consolidate", "rebuild", "export", "import"]),
    ("Server and admin", ["server", "init", "mcp", "admin", "bench"]),
]
OTHER = "Other commands"  # a command no section names (a unit test keeps this section empty)


class SectionedGroup(click.Group):
    """A click group whose help lists its commands by section (:data:`SECTIONS`)."""

    sections: list[tuple[str, list[str]]] = SECTIONS
    # command name -> whether it can run here (a hidden-when-false predicate, asked when help is shown)
    available: dict[str, Callable[[], bool]] = {}

    def shown(self, ctx: click.Context, name: str) -> bool:
        cmd = self.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            return False
        check = self.available.get(name)
        return check is None or check()

    def sectioned(self, ctx: click.Context) -> list[tuple[str, list[str]]]:
        """(title, command names) for each section with a command shown here; the commands no section names
        come last, under :data:`OTHER`."""
        known = set(self.commands)
        placed = {n for _, names in self.sections for n in names}
        out = [(title, [n for n in names if n in known and self.shown(ctx, n)]) for title, names in self.sections]
        out.append((OTHER, [n for n in sorted(known - placed) if self.shown(ctx, n)]))
        return [(title, names) for title, names in out if names]

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command, in section order (those not shown here last)."""
        ordered = [n for _, names in self.sectioned(ctx) for n in names]
        return ordered + sorted(set(self.commands) - set(ordered))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections = self.sectioned(ctx)
        if not sections:
            return
        width = max(len(n) for _, names in sections for n in names)
        limit = formatter.width - 6 - width
        for title, names in sections:
            rows = []
            for name in names:
                cmd = self.get_command(ctx, name)
                assert cmd is not None  # (sectioned lists only commands it found)
                rows.append((name.ljust(width), cmd.get_short_help_str(limit)))  # one column across sections
            with formatter.section(title):
                formatter.write_dl(rows)
