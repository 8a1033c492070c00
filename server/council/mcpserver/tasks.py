"""MCP tasks (2025-11-25) for ``council mcp``: a client that declares task support may ask for any tool call as a
task (``tools/call`` with ``params.task``); the call answers at once with the task, the work runs on in the server,
and the client polls ``tasks/get`` (status, with the latest progress line as ``statusMessage``), fetches the result
with ``tasks/result`` (it waits until the call ends) and may ``tasks/cancel`` it; ``tasks/list`` lists them. So a long
consult never meets a client's timeout for one request. Progress notifications keep going to the call's progress
token; a clarifying question or a call on the client's model goes out as a request of its own, tagged with the task
(status ``input_required`` while it waits).

The SDK 2.x serves no ``tasks/*`` (its 2025-11-25 method tables leave them out), so they are Council's own handlers,
and a task-augmented ``tools/call`` is answered by :meth:`Tasks.middleware` before the SDK's handler (which would read
the ``CreateTaskResult`` as a ``CallToolResult``). Tasks live in this process; each is kept for its time to live
(``ttl``, from its creation; at least until a minute after it ends) and then forgotten. The same store holds the
tasks of 2026-07-28 clients (the Tasks extension, :mod:`council.mcpserver.ext_tasks`); each revision's methods see
only its own tasks. The ``tasks`` capability is declared to 2025-11-25 clients only, the revision that has these
methods (:func:`declare_tasks`); an earlier revision's client sees none: its ``task`` field is ignored (a plain call)
and its ``tasks/*`` are "method not found" (:func:`~council.mcpserver.ext_tasks.by_revision`).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
import anyio.abc
import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from pydantic import BaseModel

from council.mcpserver.guard import refusal
from council.mcpserver.link import ClientLink

log = logging.getLogger("council.mcp")

DEFAULT_TTL_MS = 3_600_000  # a task the client asks no time to live for is kept an hour
MAX_TTL_MS = 86_400_000  # and at most a day
KEEP_AFTER_END = 60.0  # seconds a finished task stays at least, whatever its ttl
POLL_MS = 1000  # the interval suggested to pollers
MAX_TASKS = 32  # tasks held at once; a new one beyond that is refused
RELATED_TASK = "io.modelcontextprotocol/related-task"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
CORE_TASKS = frozenset({"2025-11-25"})  # the revisions whose core has tasks (tools/call with `task`, tasks/*)
TASK_ID_BYTES = 16  # a task id is 128 random bits: the only handle on a task, never guessed


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class CouncilTask:
    """One tool call run as a task (``extension``: a 2026-07-28 client's, with its ``inbox`` of input requests and,
    when Council itself failed, the JSON-RPC ``error``)."""

    id: str
    ttl_ms: int
    extension: bool = False
    status: str = "working"
    message: str | None = None
    created: str = field(default_factory=_now)
    updated: str = field(default_factory=_now)
    started: float = field(default_factory=time.monotonic)
    result: dict[str, Any] | None = None
    ended: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    inbox: Any = None
    error: dict[str, Any] | None = None

    def set(self, status: str, message: str | None = None) -> None:
        if self.status in TERMINAL:
            return
        self.status, self.updated = status, _now()
        if message is not None:
            self.message = message

    def say(self, message: str) -> None:
        """The latest progress line, as the task's ``statusMessage``."""
        if self.status not in TERMINAL:
            self.message, self.updated = message, _now()

    def wire(self) -> dict[str, Any]:
        task = {"taskId": self.id, "status": self.status, "createdAt": self.created, "lastUpdatedAt": self.updated,
                "ttl": self.ttl_ms, "pollInterval": POLL_MS}
        return task | ({"statusMessage": self.message} if self.message else {})


class TaskLink(ClientLink):
    """A task's line back to the client: its requests (elicitation, sampling) carry the task's id in ``_meta`` and
    put it in ``input_required`` while they wait; they and its progress go on the connection's own channel (the
    request that started the task has been answered)."""

    def __init__(self, session: Any, task: CouncilTask) -> None:
        super().__init__(session)
        self.task = task

    async def send_request(self, request: BaseModel, result_type: type[Any],
                           related_request_id: types.RequestId | None = None) -> Any:
        params = getattr(request, "params", None)
        if params is not None:
            meta = dict(params.meta or {})
            meta[RELATED_TASK] = {"taskId": self.task.id}
            request = request.model_copy(update={"params": params.model_copy(update={"meta": meta})})
        self.task.set("input_required")
        try:
            return await super().send_request(request, result_type, None)
        finally:
            self.task.set("working")

    async def send_progress_notification(self, token: types.ProgressToken | None, progress: float,
                                         total: float | None, message: str | None,
                                         related_request_id: types.RequestId | None) -> None:
        if message:
            self.task.say(message)
        await super().send_progress_notification(token, progress, total, message, None)


Work = Callable[[CouncilTask], Awaitable[types.CallToolResult]]


TASKS_CAPABILITY = types.ServerTasksCapability(
    list=types.TasksListCapability(), cancel=types.TasksCancelCapability(),
    requests=types.ServerTasksRequestsCapability(tools=types.TasksToolsCapability(call=types.TasksCallCapability())))


async def declare_tasks(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
    """Middleware: the ``initialize`` result declares MCP tasks (2025-11-25: ``tools/call`` as a task,
    ``tasks/list``, ``tasks/cancel``; clients look for them before asking for a task) when the negotiated revision
    has them, and not otherwise."""
    result = await call_next(ctx)
    if ctx.method != "initialize" or not isinstance(result, dict):
        return result
    capabilities = dict(result.get("capabilities") or {})
    capabilities.pop("tasks", None)
    if result.get("protocolVersion") in CORE_TASKS:
        capabilities["tasks"] = TASKS_CAPABILITY.model_dump(by_alias=True, mode="json", exclude_none=True)
    return {**result, "capabilities": capabilities}


class Tasks:
    """The tasks of this server, and the handlers that serve them."""

    def __init__(self) -> None:
        self.tasks: dict[str, CouncilTask] = {}
        self.tg: anyio.abc.TaskGroup | None = None

    def start(self, work: Work, ttl_ms: int | None, *, extension: bool = False) -> CouncilTask:
        """A new task running ``work``. A tool result with ``isError`` ends a 2025-11-25 task ``failed``, as that
        revision says, and an extension task ``completed`` (its ``failed`` is for JSON-RPC errors only)."""
        live = sum(1 for t in self.tasks.values() if t.status not in TERMINAL)
        if self.tg is None or live >= MAX_TASKS:
            raise refusal(types.INVALID_REQUEST, f"{live} tasks are running; wait for one to end or cancel one",
                             "too_many_tasks", limit=MAX_TASKS)
        ttl = DEFAULT_TTL_MS if ttl_ms is None else max(1000, min(int(ttl_ms), MAX_TTL_MS))
        task = CouncilTask(id=secrets.token_urlsafe(TASK_ID_BYTES), ttl_ms=ttl, extension=extension)
        self.tasks[task.id] = task

        async def run() -> None:
            try:
                with task.scope:
                    result = await work(task)
                    task.result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
                    task.set("failed" if result.is_error and not extension else "completed")
            except Exception as exc:  # run_call answers every failure itself: this is a fault of the task's own
                log.exception("task %s failed", task.id)
                message = f"{type(exc).__name__}: {exc}"[:500]
                task.error = {"code": types.INTERNAL_ERROR, "message": message,
                              "data": {"code": "internal", "message": message, "details": {}}}
                task.set("failed", message)
            finally:
                if task.status not in TERMINAL:
                    task.set("cancelled")
                task.ended.set()
            keep = max(KEEP_AFTER_END, task.ttl_ms / 1000 - (time.monotonic() - task.started))
            await anyio.sleep(keep)
            self.tasks.pop(task.id, None)

        self.tg.start_soon(run)
        return task

    def find(self, task_id: str, *, extension: bool = False) -> CouncilTask:
        """The task ``task_id`` names among this revision's tasks (``extension``: the Tasks extension's); refused
        (-32602, ``unknown_task``) when there is none."""
        task = self.tasks.get(task_id)
        if task is None or task.extension != extension:
            raise refusal(types.INVALID_PARAMS, f"no task {task_id[:64]!r} (unknown, or past its time to live)",
                             "unknown_task", fields={"taskId": "unknown task"})
        return task

    async def get(self, _ctx: ServerRequestContext, params: types.GetTaskRequestParams) -> dict[str, Any]:
        return self.find(params.task_id).wire()

    async def result(self, _ctx: ServerRequestContext, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        """The call's result once it ended (waits for it), tagged with the task."""
        task = self.find(params.task_id)
        await task.ended.wait()
        if task.result is None:
            message = f"task {task.id} was {task.status}: it has no result" + (f" ({task.message})"
                                                                                if task.message else "")
            raise refusal(types.INVALID_PARAMS, message, f"task_{task.status}", status=task.status)
        meta = {**task.result.get("_meta", {}), RELATED_TASK: {"taskId": task.id}}
        return {**task.result, "_meta": meta}

    async def cancel(self, _ctx: ServerRequestContext, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self.find(params.task_id)
        if task.status in TERMINAL:
            raise refusal(types.INVALID_PARAMS, f"task {task.id} is already {task.status}", "task_ended",
                             status=task.status)
        task.set("cancelled", "cancelled by the client")
        task.scope.cancel()
        return task.wire()

    async def list(self, _ctx: ServerRequestContext, _params: types.PaginatedRequestParams) -> dict[str, Any]:
        return {"tasks": [t.wire() for t in self.tasks.values() if not t.extension]}

    def serve(self, server: Server, call: Callable[[ServerRequestContext, types.CallToolRequestParams, CouncilTask],
                                                 Awaitable[types.CallToolResult]],
              known: Callable[[types.CallToolRequestParams], None]) -> None:
        """Register the ``tasks/*`` handlers and the middleware that starts a task for a task-augmented call
        (``known`` refuses a tool that is not known; ``call`` runs one)."""
        server.add_request_handler("tasks/get", types.GetTaskRequestParams, self.get)
        server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, self.result)
        server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, self.cancel)
        server.add_request_handler("tasks/list", types.PaginatedRequestParams, self.list)

        async def middleware(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
            params = ctx.params
            if ctx.method != "tools/call" or not isinstance(params, Mapping) or params.get("task") is None or \
                    ctx.protocol_version not in CORE_TASKS:  # another revision has no `task` field: a plain call
                return await call_next(ctx)
            request = types.CallToolRequestParams.model_validate(params, by_name=False)
            known(request)
            ttl = request.task.ttl if request.task is not None else None
            task = self.start(lambda t: call(ctx, request, t), ttl)
            log.info("%s runs as task %s", request.name, task.id)
            return {"task": task.wire()}

        server.middleware += [declare_tasks, middleware]
