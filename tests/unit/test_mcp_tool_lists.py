"""The MCP server's tools, as the server lists them, are the tools the README lists (it listed 11 while the
server had 13), and every place that names the tools names each: ``TOOLS``, docs/interface.md §4, the
``kgmem mcp --help`` text and the instructions the server gives its clients. No database is needed: the
server connects on its first tool call."""

from __future__ import annotations

import re

import anyio
import pytest
from click.testing import CliRunner

from ..conftest import ROOT

pytest.importorskip("mcp")


@pytest.fixture(scope="module")
def server_tools() -> list:
    from kgmem.mcp_server import build_server

    server = build_server(tenant="unused")
    return anyio.run(server.list_tools)


def _section(text: str, heading: str) -> str:
    """The text under a markdown heading, up to the next heading of the same or a higher level."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n")
    rest = text[start + len(heading) :]
    end = re.search(rf"^#{{1,{len(level)}}} ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def test_the_readme_lists_exactly_the_servers_tools(server_tools) -> None:
    section = _section((ROOT / "README.md").read_text(encoding="utf-8"), "## The MCP server")
    paragraph = section[section.index("Tools: ") :]
    listed = re.findall(r"`([a-z_]+)`", paragraph[: paragraph.index(";")])
    assert listed == [t.name for t in server_tools]


def test_every_place_naming_the_tools_names_each(server_tools) -> None:
    from kgmem.cli import cli
    from kgmem.mcp_server import INSTRUCTIONS, TOOLS

    names = [t.name for t in server_tools]
    assert list(TOOLS) == names
    interface = _section((ROOT / "docs" / "interface.md").read_text(encoding="utf-8"), "## 4. MCP server (`kgmem mcp`)")
    help_text = " ".join(CliRunner().invoke(cli, ["mcp", "--help"], terminal_width=200).output.split())
    words = set(re.findall(r"[a-z_]+", INSTRUCTIONS)) | set(re.findall(r"\w+", INSTRUCTIONS.replace("/", " ")))
    for name in names:
        assert f"`{name}`" in interface, f"docs/interface.md §4 does not name {name}"
        assert re.search(rf"\b{name}\b", help_text), f"kgmem mcp --help does not name {name}"
        assert name in words, f"the server's instructions do not name {name}"
