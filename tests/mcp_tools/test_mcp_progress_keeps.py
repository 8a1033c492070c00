"""Progress that a client can rely on (issue 33, found by an audit of the SDK 2.x move): while the advisors think,
``council mcp`` still sends progress (so a client that resets its timeout on progress is never cut by a long
stage); the answer's words sent in pieces are never lost when the progress buffer is full (each piece carries only
the words since the last one, so a dropped piece was a hole); a tool that does not run as a task refuses a
task-augmented call (-32601), as the spec's default ``taskSupport`` ("forbidden") says."""

from __future__ import annotations

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from council.mcpserver.server import _stages

from .conftest import PROBLEM

SLOW_ADVISORS = {"when": {"schema": "PersonaReply"}, "delay": 0.1}  # per 24-character chunk: ~2 s a reply


async def test_a_long_stage_still_sends_progress_so_a_clients_clock_is_reset(mcp_client, monkeypatch):
    monkeypatch.setenv("COUNCIL_MCP_HEARTBEAT", "0.3")
    seen: list[tuple[float, str]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message or ""))

    async with mcp_client(script={"rules": [SLOW_ADVISORS]}) as s:
        result = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"},
                                   progress_callback=on_progress)
    assert not result.is_error, result
    still = [m for _, m in seen if "still at work" in m]
    assert still, [m for _, m in seen]
    assert [p for p, _ in seen] == sorted(p for p, _ in seen) and len({p for p, _ in seen}) == len(seen)


def test_answer_words_a_full_buffer_refused_come_with_the_next_piece():
    text = "Extract one well bounded service first and measure before splitting the rest of the monolith "
    taken: list[str] = []
    refuse = {2, 3}  # the buffer is full for the 2nd and 3rd pieces
    calls = [0]

    def report(line: str | None) -> bool:
        calls[0] += 1
        if calls[0] in refuse:
            return False
        taken.append(line or "")
        return True

    on_event = _stages(report)
    for end in range(5, len(text) + 1, 7):
        on_event({"type": "answer.delta", "text": text[:end]})
    on_event({"type": "answer.delta", "text": text})
    said = " ".join(line.split(": ", 1)[1] for line in taken)
    assert said.split() == text.split()[:-1], said  # every word but the last, still being written (the result has it)


@pytest.mark.parametrize("tool", ["council_define_personas"])
async def test_a_tool_that_does_not_run_as_a_task_refuses_a_task_call(mcp_client, tool):
    async with mcp_client() as s:
        listed = {t.name: t for t in (await s.list_tools()).tools}
        assert (listed[tool].execution is None or listed[tool].execution.task_support in (None, "forbidden"))
        with pytest.raises(MCPError) as refused:
            await s._dispatcher.send_raw_request("tools/call", {"name": tool, "arguments": {}, "task": {"ttl": 1000}},
                                                 {"timeout": 10.0})
        assert refused.value.error.code == types.METHOD_NOT_FOUND
        assert refused.value.error.data["code"] == "validation"
        assert refused.value.error.data["details"]["reason"] == "task_not_supported"
        assert (await s.list_tools()).tools  # still serving
