"""MCP tasks (2025-11-25) in ``council mcp``, driven by the official Python SDK 2.x client over stdio (its JSON-RPC
dispatcher: the SDK's typed client has no ``tasks/*`` calls): a consult that outlasts the client's timeout for one
request runs as a task — the call answers at once, ``tasks/get`` shows its status and latest progress line,
``tasks/result`` brings the result — and a task cancelled with ``tasks/cancel`` stops its model calls. Bad task ids
and requests on ended tasks are ``validation`` errors; the server keeps serving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from .conftest import PROBLEM

CONSULT = {"user_problem": PROBLEM, "depth": "brief"}
SLOW = {"when": {"schema": "PersonaReply"}, "delay": 0.25}  # each advisor's reply streams for a few seconds
RELATED_TASK = "io.modelcontextprotocol/related-task"


async def raw(session, method: str, params: dict[str, Any], timeout: float = 1.0) -> dict[str, Any]:
    """One request through the SDK client's dispatcher, answered within ``timeout`` seconds."""
    return await session._dispatcher.send_raw_request(method, params, {"timeout": timeout})


def advisors(trace: Path) -> list[dict[str, Any]]:
    """The scripted provider's trace lines of the advisors' calls (start / end / cancelled)."""
    lines = [json.loads(x) for x in trace.read_text().splitlines()] if trace.exists() else []
    return [x for x in lines if x["purpose"] != "clarifier"]


async def start_task(session, arguments: dict[str, Any]) -> types.Task:
    created = await raw(session, "tools/call", {"name": "council_consult", "arguments": arguments,
                                                "task": {"ttl": 60_000}})
    return types.CreateTaskResult.model_validate(created, by_name=False).task


async def test_a_consult_longer_than_the_clients_timeout_runs_as_a_task(mcp_client):
    async with mcp_client(script={"rules": [SLOW]}) as s:
        tasks = s.server_capabilities.tasks  # what a client looks for before it asks for a task
        assert tasks.requests.tools.call is not None and tasks.list is not None and tasks.cancel is not None
        listed = {t.name: t for t in (await s.list_tools()).tools}
        assert listed["council_consult"].execution.task_support == "optional"
        with pytest.raises(MCPError) as cut:  # as one request, the consult outlasts the client's clock
            await s.call_tool("council_consult", CONSULT, read_timeout_seconds=1.0)
        assert cut.value.error.code == types.REQUEST_TIMEOUT
        task = await start_task(s, CONSULT)
        assert task.status == "working" and task.poll_interval
        statuses, lines = [], set()
        with anyio.fail_after(60):
            while True:
                got = types.GetTaskResult.model_validate(await raw(s, "tasks/get", {"taskId": task.task_id}),
                                                         by_name=False)
                statuses.append(got.status)
                lines.add(got.status_message)
                if got.status not in ("working", "input_required"):
                    break
                await anyio.sleep(0.2)
        assert got.status == "completed" and statuses.count("working") >= 3, statuses
        assert any(line and "thinking" in line for line in lines), lines  # the latest progress line
        payload = await raw(s, "tasks/result", {"taskId": task.task_id})
        result = types.CallToolResult.model_validate(payload, by_name=False)
        assert not result.is_error and result.structured_content["responses"]
        assert payload["_meta"][RELATED_TASK] == {"taskId": task.task_id}
        every = await raw(s, "tasks/list", {})
        assert task.task_id in {t["taskId"] for t in every["tasks"]}


async def test_a_cancelled_task_stops_its_model_calls_and_bad_task_requests_are_refused(mcp_client, tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    async with mcp_client(script={"trace": str(trace), "rules": [{**SLOW, "delay": 5.0}]}) as s:
        task = await start_task(s, CONSULT)
        with anyio.fail_after(20):  # an advisor is thinking
            while not [x for x in advisors(trace) if x["event"] == "start"]:
                await anyio.sleep(0.1)
        cancelled = await raw(s, "tasks/cancel", {"taskId": task.task_id})
        assert cancelled["status"] == "cancelled"
        with anyio.fail_after(10):
            while '"cancelled"' not in trace.read_text():
                await anyio.sleep(0.05)
        await anyio.sleep(0.3)
        assert not [x for x in advisors(trace) if x["event"] == "end"]
        assert (await raw(s, "tasks/get", {"taskId": task.task_id}))["status"] == "cancelled"
        refusals = {}
        for label, method, task_id in [("no result", "tasks/result", task.task_id),
                                       ("ended", "tasks/cancel", task.task_id),
                                       ("unknown", "tasks/get", "no-such-task")]:
            with pytest.raises(MCPError) as refused:
                await raw(s, method, {"taskId": task_id})
            assert refused.value.error.code == types.INVALID_PARAMS, label
            refusals[label] = refused.value.error.data
        assert all(d["code"] == "validation" for d in refusals.values())
        assert [d["details"]["reason"] for d in refusals.values()] == ["task_cancelled", "task_ended", "unknown_task"]
        assert (await s.list_tools()).tools  # the server carries on
