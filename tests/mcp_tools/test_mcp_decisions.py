"""``council_decisions`` over MCP: listed only when ``council mcp`` runs with ``--memory``; it lists, searches and
shows the decisions the same server's consults kept, as structured content and text. The consult tools' annotations
follow: read-only without memory, not with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from .conftest import PROBLEM, tool_error


async def test_the_decisions_tool_appears_with_memory_and_finds_what_a_consult_decided(mcp_client, tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    async with mcp_client(workspace=ws, extra=["--memory"]) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "council_decisions" in tools and tools["council_decisions"].annotations.read_only_hint is True
        for name in ("council_consult", "persona_consult"):  # a completed consult writes the memory
            assert tools[name].annotations.read_only_hint is False and tools[name].annotations.destructive_hint is False
            assert "A completed consult is remembered" in tools[name].description
        assert tools["council_review"].annotations.read_only_hint is True
        with pytest.raises(MCPError) as unknown:  # an unknown tool is a protocol error; its data lists the tools
            await s.call_tool("council_summon", {})
        assert unknown.value.error.data["details"]["valid"] == list(tools)
        empty = await s.call_tool("council_decisions", {})
        assert not empty.is_error and empty.structured_content["decisions"] == []
        consult = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})
        assert not consult.is_error
        found = await s.call_tool("council_decisions", {"query": "split a monolith into services"})
        assert not found.is_error, found.content
        [d] = found.structured_content["decisions"]
        assert d["question"].startswith(PROBLEM) and d["outcome"] and d["options"]
        assert found.structured_content["method"] == "tfidf" and found.structured_content["similarity"][0] > 0
        assert PROBLEM[:30] in found.content[0].text
        one = await s.call_tool("council_decisions", {"decision_id": d["decision_id"]})
        assert "Key arguments" in one.content[0].text
        bad = await s.call_tool("council_decisions", {"decision_id": "nope-nope"})
        assert bad.is_error and tool_error(bad)["code"] == "validation"
    assert (ws / ".council" / "decisions.sqlite3").is_file()


async def test_without_memory_the_tool_is_not_offered_and_nothing_is_written(mcp_client, tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    async with mcp_client(workspace=ws) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "council_decisions" not in tools and tools["council_consult"].annotations.read_only_hint is True
        refused = await s.call_tool("council_decisions", {})
        assert refused.is_error and tool_error(refused)["code"] == "permission"
        assert not (await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})).is_error
    assert list(ws.iterdir()) == []


async def test_a_file_that_is_not_a_decision_memory_is_a_tool_error_with_the_contract_shape(mcp_client, tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / ".council").mkdir(parents=True)
    (ws / ".council" / "decisions.sqlite3").write_text("junk\n", encoding="utf-8")
    async with mcp_client(workspace=ws, extra=["--memory"]) as s:
        for arguments in ({}, {"query": "monolith"}, {"decision_id": "abcd"}):
            bad = await s.call_tool("council_decisions", arguments)
            error = tool_error(bad)
            assert bad.is_error and set(error) == {"code", "message", "details"} and error["code"] == "validation"
            assert error["details"]["reason"] == "memory_unreadable" and "is not a decision memory" in error["message"]
