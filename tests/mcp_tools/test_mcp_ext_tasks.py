"""``council mcp`` for an MCP 2026-07-28 client of the Tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663),
against a real ``council mcp`` subprocess. The client is the official Python SDK 2.x ``Client`` pinned to 2026-07-28
with :class:`TasksClient`, the extension as a client implements it through the SDK's own extension API (the SDK has no
runtime for it): it declares the extension in every request's capabilities and claims the ``resultType: "task"``
answer of ``tools/call``, polling ``tasks/get`` and answering the task's input requests (the client's elicitation
and sampling callbacks, as the SDK dispatches input requests) with ``tasks/update``. A consult then outlasts the
client's clock for one request, asks its questions and uses the client's model without meeting it; ``tasks/cancel``
stops its model calls; a bad task id, a malformed response, a method the extension does not have are refused with
the contract's ``{code, message, details}``; a client that does not declare the extension gets the plain result;
and only 2025-11-25 clients see the core ``tasks`` capability."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp.types as types
import pytest
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from .conftest import MODERN, PROBLEM
from .test_mcp_sampling import ScriptedClientModel
from .test_mcp_tasks import advisors
from .test_mcp_wire import INITIALIZED, RawServer

EXTENSION = "io.modelcontextprotocol/tasks"
CONSULT = {"user_problem": PROBLEM, "depth": "brief"}
SLOW = {"when": {"schema": "PersonaReply"}, "delay": 0.25}  # each advisor's reply streams for a few seconds
RAW = TypeAdapter(dict[str, Any])
INPUT_REQUEST = TypeAdapter(types.InputRequest)
CLOCK = 2.0  # the client's timeout for one request, in seconds
POLL = 0.2  # seconds between polls (the server suggests 1 s; the tests do not wait that long)


class TaskHandle(types.Result):
    """The extension's ``CreateTaskResult`` (``resultType: "task"``)."""

    result_type: Literal["task"]
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class UpdateTaskParams(types.RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class GetTask(types.Request[types.GetTaskRequestParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class UpdateTask(types.Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class CancelTask(types.Request[types.CancelTaskRequestParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class Raw(types.Request[types.RequestParams, str]):
    """Any other request (its params as given)."""

    params: dict[str, Any]


async def get(session, task_id: str) -> dict[str, Any]:
    return await session.send_request(GetTask(params=types.GetTaskRequestParams(task_id=task_id)), RAW)


async def update(session, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    return await session.send_request(UpdateTask(params=UpdateTaskParams(task_id=task_id,
                                                                         input_responses=responses)), RAW)


async def cancel(session, task_id: str) -> dict[str, Any]:
    return await session.send_request(CancelTask(params=types.CancelTaskRequestParams(task_id=task_id)), RAW)


class TasksClient(ClientExtension):
    """The Tasks extension on the client's side: a ``tools/call`` answered with a task is polled to its end; what
    the task asks is answered once each (keys seen before are not asked again). ``handles`` and ``polls`` keep
    what the server said."""

    identifier = EXTENSION

    def __init__(self) -> None:
        self.handles: list[TaskHandle] = []
        self.polls: list[dict[str, Any]] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        self.handles.append(handle)
        session, answered = ctx.session, set()
        with anyio.fail_after(120):
            while True:
                task = await get(session, handle.task_id)
                self.polls.append(task)
                if task["status"] == "completed":
                    return types.CallToolResult.model_validate(task["result"], by_name=False)
                if task["status"] in ("failed", "cancelled"):
                    raise AssertionError(f"the task ended {task['status']}: {task}")
                if task["status"] == "input_required":
                    responses = {}
                    for key, raw in task["inputRequests"].items():
                        if key in answered:
                            continue
                        answered.add(key)
                        response = await session.dispatch_input_request(
                            ClientRequestContext(session=session, request_id=key),
                            INPUT_REQUEST.validate_python(raw, by_name=False))
                        responses[key] = response.model_dump(by_alias=True, mode="json", exclude_none=True)
                    if responses:
                        assert (await update(session, handle.task_id, responses))["resultType"] == "complete"
                await anyio.sleep(POLL)


async def offered(client) -> types.ServerCapabilities:
    """The server's capabilities, as ``server/discover`` says them (a pinned ``Client`` sends none itself)."""
    return types.DiscoverResult.model_validate(await client.session.send_discover(MODERN)).capabilities


def same_answer(result: types.CallToolResult) -> dict[str, Any]:
    """What a consult's result says, without the ids minted for each run (a question's ``question_id`` …) and the
    ``_meta`` a response is stamped with."""

    def without_ids(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: without_ids(v) for k, v in value.items() if not k.endswith("_id")}
        return [without_ids(v) for v in value] if isinstance(value, list) else value

    return without_ids(result.model_dump(mode="json", exclude_none=True, exclude={"meta"}))


async def test_a_consult_longer_than_the_clients_timeout_runs_as_an_extension_task(modern_client, tmp_path: Path):
    (tmp_path / "slow.json").write_text(json.dumps({"rules": [SLOW]}))
    tasks = TasksClient()
    async with modern_client(["--provider", "scripted", "--script", "slow.json"], extensions=[tasks],
                             read_timeout_seconds=CLOCK) as c:
        capabilities = await offered(c)
        assert capabilities.extensions == {EXTENSION: {}} and capabilities.tasks is None  # core tasks: 2025-11-25
        result = await c.call_tool("council_consult", CONSULT)  # each request within the client's clock
    [handle] = tasks.handles
    assert handle.status == "working" and handle.poll_interval_ms and len(handle.task_id) >= 20
    statuses = [p["status"] for p in tasks.polls]
    assert statuses[-1] == "completed" and statuses.count("working") >= 3, statuses
    assert any("thinking" in (p.get("statusMessage") or "") for p in tasks.polls)  # the latest progress line
    assert all(p["taskId"] == handle.task_id and p["resultType"] == "complete" and p["ttlMs"] for p in tasks.polls)
    assert not result.is_error and result.structured_content["responses"]
    async with modern_client(["--provider", "scripted", "--script", "slow.json"]) as plain:  # no extension
        with pytest.raises(MCPError) as cut:  # as one request, the consult outlasts the client's clock
            await plain.call_tool("council_consult", CONSULT, read_timeout_seconds=CLOCK)
        assert cut.value.error.code == types.REQUEST_TIMEOUT
        direct = await plain.call_tool("council_consult", CONSULT)
    assert same_answer(result) == same_answer(direct)


async def test_a_tasks_questions_are_answered_through_tasks_get_and_tasks_update(modern_client):
    asked: list[types.ElicitRequestParams] = []

    async def elicit(_ctx, params):  # the user takes longer than the client's clock for one request
        asked.append(params)
        await anyio.sleep(CLOCK + 1.0)
        return types.ElicitResult(action="accept", content={"choice": "Cut costs"} if len(asked) == 1 else
                                  {"answer": "By the end of next month"})

    tasks = TasksClient()
    async with modern_client(["--provider", "scripted"], extensions=[tasks], elicitation_callback=elicit,
                             read_timeout_seconds=CLOCK) as c:
        await offered(c)  # the server has started (the clock would count its start too)
        result = await c.call_tool("council_consult", CONSULT)
    assert len(tasks.handles) == 1 and len(asked) == 2
    waiting = [p for p in tasks.polls if p["status"] == "input_required"]
    keys = [k for p in waiting for k in p["inputRequests"]]
    assert waiting and {p["inputRequests"][k]["method"] for p in waiting for k in p["inputRequests"]} == \
        {"elicitation/create"}
    assert len(set(keys)) == 2  # one key per question, never reused
    assert not result.is_error, result.content[0].text
    clar = result.structured_content["clarifications"]
    assert [(x["status"], x["answer"]) for x in clar] == [("answered", "Cut costs"),
                                                         ("answered", "By the end of next month")]
    assert result.structured_content["assumptions"] == []


async def test_a_task_on_the_clients_model_takes_its_create_message_requests_through_tasks_update(modern_client):
    model, tasks = ScriptedClientModel(), TasksClient()
    async with modern_client([], extensions=[tasks], sampling_callback=model, read_timeout_seconds=5.0) as c:
        result = await c.call_tool("council_consult", CONSULT)
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert len(tasks.handles) == 1 and data["model_calls"] == len(model.requests) >= 2 + len(data["responses"])
    sent = {r["method"] for p in tasks.polls if p["status"] == "input_required" for r in p["inputRequests"].values()}
    assert sent == {"sampling/createMessage"}
    assert data["synthesis"]["recommendation"] == "Take the staged approach and measure each step."


async def test_tasks_cancel_stops_the_tasks_model_calls(modern_client, tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    (tmp_path / "slow.json").write_text(json.dumps({"trace": str(trace), "rules": [{**SLOW, "delay": 5.0}]}))
    async with modern_client(["--provider", "scripted", "--script", "slow.json"], extensions=[TasksClient()]) as c:
        handle = await c.session.call_tool("council_consult", CONSULT, allow_claimed=True)
        assert isinstance(handle, TaskHandle)
        with anyio.fail_after(20):  # an advisor is thinking
            while not [x for x in advisors(trace) if x["event"] == "start"]:
                await anyio.sleep(0.1)
        assert (await cancel(c.session, handle.task_id))["resultType"] == "complete"
        with anyio.fail_after(10):
            while '"cancelled"' not in trace.read_text():
                await anyio.sleep(0.05)
        await anyio.sleep(0.5)
        ended = await get(c.session, handle.task_id)
        assert ended["status"] == "cancelled" and "result" not in ended
        assert not [x for x in advisors(trace) if x["event"] == "end"]  # no model call went on
        calls = len(trace.read_text().splitlines())
        await anyio.sleep(1.0)
        assert len(trace.read_text().splitlines()) == calls  # and none started after
        again = await cancel(c.session, handle.task_id)  # an ended task keeps its status
        assert again["resultType"] == "complete" and (await get(c.session, handle.task_id))["status"] == "cancelled"


async def test_bad_task_requests_are_refused_with_the_contracts_error(modern_client):
    async def elicit(_ctx, _params):
        return types.ElicitResult(action="accept", content={"answer": "Soon"})

    async with modern_client(["--provider", "scripted"], extensions=[TasksClient()], elicitation_callback=elicit) as c:
        handle = await c.session.call_tool("council_consult", CONSULT, allow_claimed=True)
        with anyio.fail_after(20):
            while (task := await get(c.session, handle.task_id))["status"] != "input_required":
                await anyio.sleep(0.05)
        [key] = task["inputRequests"]
        forged = handle.task_id[:-2] + ("AA" if not handle.task_id.endswith("AA") else "BB")
        refused: dict[str, types.ErrorData] = {}
        for label, request in [("unknown get", GetTask(params=types.GetTaskRequestParams(task_id="no-such-task"))),
                               ("forged get", GetTask(params=types.GetTaskRequestParams(task_id=forged))),
                               ("forged update", UpdateTask(params=UpdateTaskParams(
                                   task_id=forged, input_responses={key: {"action": "cancel"}}))),
                               ("forged cancel", CancelTask(params=types.CancelTaskRequestParams(task_id=forged))),
                               ("malformed response", UpdateTask(params=UpdateTaskParams(
                                   task_id=handle.task_id, input_responses={key: {"action": "maybe"}}))),
                               ("no task id", Raw(method="tasks/get", params={}))]:
            with pytest.raises(MCPError) as error:
                await c.session.send_request(request, RAW)
            refused[label] = error.value.error
        assert all(e.code == types.INVALID_PARAMS for e in refused.values()), refused
        assert all(e.data["code"] == "validation" and e.data["message"] and "details" in e.data
                   for e in refused.values()), refused
        assert {refused[x].data["details"]["reason"] for x in refused if "forged" in x or "unknown" in x} == \
            {"unknown_task"}
        assert f"inputResponses.{key}.action" in refused["malformed response"].data["details"]["fields"]
        for method in ("tasks/list", "tasks/result"):  # not in the extension
            with pytest.raises(MCPError) as missing:
                await c.session.send_request(Raw(method=method, params={"taskId": handle.task_id}), RAW)
            assert missing.value.error.code == types.METHOD_NOT_FOUND, method
            assert missing.value.error.data["code"] == "validation"
        assert (await get(c.session, handle.task_id))["status"] == "input_required"  # nothing was taken
        ignored = await update(c.session, handle.task_id, {"q999": {"action": "accept", "content": {}}})
        assert ignored["resultType"] == "complete"  # a key that is not open is ignored, as the extension says
        with anyio.fail_after(30):  # the genuine answers are taken (the council asks a second question)
            while (task := await get(c.session, handle.task_id))["status"] not in ("completed", "failed"):
                if task["status"] == "input_required":
                    await update(c.session, handle.task_id, {k: {"action": "accept", "content": {"answer": "Soon"}}
                                                             for k in task["inputRequests"]})
                await anyio.sleep(POLL)
        assert task["status"] == "completed" and not task["result"]["isError"]
        assert [x["answer"] for x in task["result"]["structuredContent"]["clarifications"]] == ["Soon", "Soon"]


async def test_a_client_without_the_extension_gets_the_plain_result_and_no_task_methods(modern_client):
    async with modern_client(["--provider", "scripted"]) as c:
        assert (await offered(c)).extensions == {EXTENSION: {}}  # what the server offers
        result = await c.call_tool("council_consult", CONSULT)  # a CallToolResult, no task
        with pytest.raises(MCPError) as undeclared:
            await get(c.session, "any-task")
        with pytest.raises(MCPError) as listed:
            await c.session.send_request(Raw(method="tasks/list", params={}), RAW)
    assert isinstance(result, types.CallToolResult) and not result.is_error and result.structured_content["responses"]
    error = undeclared.value.error
    assert error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert error.data["requiredCapabilities"] == {"extensions": {EXTENSION: {}}}
    assert error.data["code"] == "validation" and EXTENSION in error.data["message"]
    assert listed.value.error.code == types.METHOD_NOT_FOUND


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26"])
def test_a_client_of_a_revision_without_tasks_is_offered_none(tmp_path: Path, version: str):
    server = RawServer(tmp_path)
    try:
        server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}, INITIALIZED)
        result = server.answer(0)["result"]
        assert result["protocolVersion"] == version
        assert "tasks" not in result["capabilities"] and "extensions" not in result["capabilities"]
        assert result["capabilities"]["tools"] is not None
    finally:
        assert server.close() == 0
