"""The workspace without roots: a tool call's ``workspace`` argument names the folder it is about (its persona
overrides, memory and evidence), before ``--workspace`` and the client's roots; a 2026-07-28 client, which has no
roots, names it so. A folder that is not an existing absolute local folder, or a secret-looking one, is refused; on a
server whose workspace is fixed (``--workspace``) only that folder is accepted. Real ``council mcp`` subprocesses
driven by the official Python SDK 2.x client."""

from __future__ import annotations

import json
from pathlib import Path

from .test_mcp_roots import WRITTEN, council_mcp, focus, override


def project(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    (folder / WRITTEN.parent).mkdir(parents=True)
    (folder / WRITTEN).write_text('id = "devils-advocate"\nfocus = ["Price the delay in ' + name + '"]\n',
                                  encoding="utf-8")
    return folder


def error(result) -> dict:
    assert result.is_error, result
    return json.loads(result.content[1].text)["error"]


async def test_the_calls_workspace_argument_comes_first(tmp_path: Path):
    a, b = project(tmp_path, "a"), project(tmp_path, "b")
    (tmp_path / ".ssh").mkdir()  # an existing folder that looks like a secret one
    async with council_mcp(tmp_path, None) as s:
        listed = await s.list_tools()
        assert all("workspace" in t.input_schema["properties"] for t in listed.tools)
        in_a = await s.call_tool("council_define_personas", {"workspace": str(a)})
        in_b = await s.call_tool("council_define_personas", {"workspace": str(b)})
        default = await s.call_tool("council_define_personas", {})
        written = await override(s)  # no argument: where the server was started, as before
        refused = {label: error(await s.call_tool("council_define_personas", {"workspace": value}))
                   for label, value in [("relative", "a"), ("missing", str(tmp_path / "nope")),
                                        ("secret", str(tmp_path / ".ssh")), ("not text", 5)]}
    assert focus(in_a) == ["Price the delay in a"] and focus(in_b) == ["Price the delay in b"]
    assert "Price the delay" not in " ".join(focus(default)) and written
    assert (tmp_path / "started-in" / WRITTEN).exists()
    assert {k: (e["code"], e["details"].get("reason")) for k, e in refused.items() if k != "not text"} == dict.fromkeys(
        ["relative", "missing", "secret"], ("validation", "workspace_unusable"))
    assert refused["not text"]["code"] == "validation" and "workspace" in refused["not text"]["details"]["fields"]


async def test_a_fixed_workspace_takes_only_itself_as_the_argument(tmp_path: Path):
    a, b = project(tmp_path, "a"), project(tmp_path, "b")
    async with council_mcp(tmp_path, None, "--workspace", str(a)) as s:
        same = await s.call_tool("council_define_personas", {"workspace": str(a)})
        other = error(await s.call_tool("council_define_personas", {"workspace": str(b)}))
    assert focus(same) == ["Price the delay in a"]
    assert other["code"] == "validation" and other["details"]["reason"] == "workspace_fixed"


async def test_a_2026_07_28_client_names_its_workspace_by_the_argument(modern_client, tmp_path: Path):
    a = project(tmp_path, "a")
    async with modern_client(["--provider", "scripted"], workspace=False) as c:
        named = await c.call_tool("council_define_personas", {"workspace": str(a)})
    assert focus(named) == ["Price the delay in a"]
