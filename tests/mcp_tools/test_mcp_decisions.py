"""``council_decisions`` over MCP: listed only when ``council mcp`` runs with ``--memory``; it lists, searches and
shows the decisions the same server's consults kept, as structured content and text. The consult tools' annotations
follow: read-only without memory, not with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import McpError

from .conftest import PROBLEM, tool_error


async def test_the_decisions_tool_appears_with_memory_and_finds_what_a_consult_decided(mcp_client, tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    async with mcp_client(workspace=ws, extra=["--memory"]) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "council_decisions" in tools and tools["council_decisions"].annotations.readOnlyHint is True
        for name in ("council_consult", "persona_consult"):  # a completed consult writes the memory
            assert tools[name].annotations.readOnlyHint is False and tools[name].annotations.destructiveHint is False
            assert "A completed consult is remembered" in tools[name].description
        assert tools["council_review"].annotations.readOnlyHint is True
        with pytest.raises(McpError) as unknown:  # an unknown tool is a protocol error; its data lists the tools
            await s.call_tool("council_summon", {})
        assert unknown.value.error.data["details"]["valid"] == list(tools)
        empty = await s.call_tool("council_decisions", {})
        assert not empty.isError and empty.structuredContent["decisions"] == []
        consult = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})
        assert not consult.isError
        found = await s.call_tool("council_decisions", {"query": "split a monolith into services"})
        assert not found.isError, found.content
        [d] = found.structuredContent["decisions"]
        assert d["question"].startswith(PROBLEM) and d["outcome"] and d["options"]
        assert found.structuredContent["method"] == "tfidf" and found.structuredContent["similarity"][0] > 0
        assert PROBLEM[:30] in found.content[0].text
        one = await s.call_tool("council_decisions", {"decision_id": d["decision_id"]})
        assert "Key arguments" in one.content[0].text
        bad = await s.call_tool("council_decisions", {"decision_id": "nope-nope"})
        assert bad.isError and tool_error(bad)["code"] == "validation"
    assert (ws / ".council" / "decisions.sqlite3").is_file()


async def test_without_memory_the_tool_is_not_offered_and_nothing_is_written(mcp_client, tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    async with mcp_client(workspace=ws) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "council_decisions" not in tools and tools["council_consult"].annotations.readOnlyHint is True
        refused = await s.call_tool("council_decisions", {})
        assert refused.isError and tool_error(refused)["code"] == "permission"
        assert not (await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})).isError
    assert list(ws.iterdir()) == []


async def test_a_file_that_is_not_a_decision_memory_is_a_tool_error_with_the_contract_shape(mcp_client, tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / ".council").mkdir(parents=True)
    (ws / ".council" / "decisions.sqlite3").write_text("junk\n", encoding="utf-8")
    async with mcp_client(workspace=ws, extra=["--memory"]) as s:
        for arguments in ({}, {"query": "monolith"}, {"decision_id": "abcd"}):
            bad = await s.call_tool("council_decisions", arguments)
            error = tool_error(bad)
            assert bad.isError and set(error) == {"code", "message", "details"} and error["code"] == "validation"
            assert error["details"]["reason"] == "memory_unreadable" and "is not a decision memory" in error["message"]
