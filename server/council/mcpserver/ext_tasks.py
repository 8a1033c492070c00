"""MCP tasks for 2026-07-28 clients: the official Tasks extension ``io.modelcontextprotocol/tasks`` (SEP-2663), in
which tasks left the core protocol. A client declares the extension in a request's own capabilities
(``_meta["io.modelcontextprotocol/clientCapabilities"].extensions``); ``council mcp`` then answers a consult or a
review (:data:`~council.mcpserver.server.LONG`) with a task handle (``CreateTaskResult``, ``resultType: "task"``) and
runs the call on, so it never meets the client's clock for one request. The client polls ``tasks/get`` (the task's
status, the latest progress line as ``statusMessage``, its open input requests while ``input_required``, its result
once ``completed`` — a tool error included — or the JSON-RPC error once ``failed``), answers the input requests with
``tasks/update`` and may ``tasks/cancel`` it. The extension has no ``tasks/list`` and no ``tasks/result``: at
2026-07-28 they are "method not found"; the 2025-11-25 methods (:mod:`council.mcpserver.tasks`) serve the earlier
revision's clients, on the same store of tasks, and neither revision sees the other's tasks. A client that does not
declare the extension gets the plain result (its questions as multi-round-trip input requests,
:mod:`council.mcpserver.rounds`), and its ``tasks/*`` requests are refused with -32021, as the extension says.

The work's clarifying questions (elicitation) and calls on the client's model (``sampling/createMessage``) wait in
the task's :class:`Inbox`, which stands where an exchange stands for a :class:`~council.mcpserver.rounds.RoundsLink`:
every timeout and fallback of the consult stays as it is. Each input request's key is new over the task's life; an
update's response for a key that is not open is ignored, as the extension says, and a malformed one is refused before
any is taken. Task ids are 128 random bits, the only handle on a task; ``notifications/tasks`` (optional) is not sent.

The SDK 2.3 carries no runtime for the extension: the handlers are Council's own, registered beside the 2025-11-25
ones on the low-level ``Server`` with each method answering by the request's protocol revision (:func:`by_revision`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.types.methods import serialize_server_result
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from council.errors import from_pydantic
from council.mcpserver.guard import UpdateTaskParams, refusal, refused_data
from council.mcpserver.rounds import Need, RoundsLink, input_key
from council.mcpserver.tasks import CORE_TASKS, POLL_MS, TERMINAL, CouncilTask, Tasks

log = logging.getLogger("council.mcp")

EXTENSION = "io.modelcontextprotocol/tasks"
Handler = Callable[[ServerRequestContext, Any], Awaitable[Any]]


def declares_tasks(ctx: ServerRequestContext) -> bool:
    """Whether this request's client capabilities declare the Tasks extension."""
    capabilities = ctx.session.client_capabilities
    return bool(capabilities is not None and capabilities.extensions and EXTENSION in capabilities.extensions)


def missing_extension(method: str) -> MCPError:
    """-32021 for a ``tasks/*`` request of a client that did not declare the extension: the extension's
    ``requiredCapabilities`` beside the contract's ``code``/``message``/``details``."""
    message = f"{method} needs the {EXTENSION} extension declared in this request's client capabilities"
    required = {"extensions": {EXTENSION: {}}}
    return MCPError(types.MISSING_REQUIRED_CLIENT_CAPABILITY, message, {
        **refused_data(message, "missing_required_client_capability", requiredCapabilities=required),
        "requiredCapabilities": required})


class Inbox:
    """A task's open input requests: what its work asks waits here until ``tasks/update`` brings the answer (the
    task is ``input_required`` while any waits); its progress lines become the task's ``statusMessage``."""

    def __init__(self, task: CouncilTask) -> None:
        self.task = task
        self.open: dict[str, Need] = {}
        self.count = 0

    async def ask(self, request: types.CreateMessageRequest | types.ElicitRequest) -> Any:
        """Wait for the client's answer to ``request`` (raw, as ``tasks/update`` brought it); cancelled with the
        work, or by the work's own deadline (the request is no longer open then)."""
        self.count += 1
        key = input_key(request, self.count)
        need = self.open[key] = Need(request)
        self.task.set("input_required")
        try:
            await need.answered.wait()
        finally:
            self.open.pop(key, None)
            if not self.open:
                self.task.set("working")
        return need.answer

    async def progress(self, _done: float, message: str) -> None:
        self.task.say(message)

    def requests(self) -> dict[str, Any]:
        """The open input requests, as ``inputRequests`` carries them."""
        return {key: need.request.model_dump(by_alias=True, mode="json", exclude_none=True)
                for key, need in self.open.items()}

    def answer(self, responses: Mapping[str, Any]) -> int:
        """Give each open request its response (a key not open is ignored); a malformed response refuses the whole
        update (-32602, naming it), so nothing is half taken. Returns how many were taken."""
        taken: dict[str, Any] = {}
        for key, response in responses.items():
            need = self.open.get(key)
            if need is None or need.answered.is_set():
                continue
            expected = types.ElicitResult if isinstance(need.request, types.ElicitRequest) else \
                types.CreateMessageResult
            try:
                expected.model_validate(response, by_name=False)
            except ValidationError as exc:
                err = from_pydantic(exc, f"response to input request {key!r}", prefix=f"inputResponses.{key}")
                raise refusal(types.INVALID_PARAMS, err.message, "malformed_input_response",
                                 fields=err.details.get("fields", {})) from None
            taken[key] = response
        for key, response in taken.items():
            self.open[key].give(response)
        return len(taken)


def detailed(task: CouncilTask, version: str) -> dict[str, Any]:
    """The extension's ``DetailedTask``: the task, with its open input requests, its result or its error."""
    wire: dict[str, Any] = {"taskId": task.id, "status": task.status, "createdAt": task.created,
                            "lastUpdatedAt": task.updated, "ttlMs": task.ttl_ms, "pollIntervalMs": POLL_MS}
    if task.message:
        wire["statusMessage"] = task.message
    if task.status == "input_required" and isinstance(task.inbox, Inbox):
        wire["inputRequests"] = task.inbox.requests()
    elif task.status == "completed" and task.result is not None:
        wire["result"] = serialize_server_result("tools/call", version, task.result)  # as a plain call's result
    elif task.status == "failed":
        wire["error"] = task.error or {"code": types.INTERNAL_ERROR, "message": task.message or "the task failed"}
    return wire


class ExtensionTasks:
    """The Tasks extension's side of ``council mcp``: tasks started for a declaring client's calls, kept in the
    shared :class:`~council.mcpserver.tasks.Tasks` store, and the ``tasks/get|update|cancel`` handlers."""

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks

    def start(self, ctx: ServerRequestContext,
              run: Callable[[RoundsLink], Awaitable[types.CallToolResult]]) -> dict[str, Any]:
        """Run ``run`` (one tool call, given its line back to the client) as a task; the ``CreateTaskResult``."""
        capabilities = ctx.session.client_capabilities

        async def work(task: CouncilTask) -> types.CallToolResult:
            return await run(RoundsLink(task.inbox, capabilities))

        task = self.tasks.start(work, None, extension=True)
        task.inbox = Inbox(task)  # before the work runs: the task group starts it at the next checkpoint
        log.info("a tools/call runs as task %s (Tasks extension)", task.id)
        return {"resultType": "task", **detailed(task, ctx.protocol_version)}

    def _task(self, ctx: ServerRequestContext, method: str, task_id: str) -> CouncilTask:
        if not declares_tasks(ctx):
            raise missing_extension(method)
        return self.tasks.find(task_id, extension=True)

    async def get(self, ctx: ServerRequestContext, params: types.GetTaskRequestParams) -> dict[str, Any]:
        return {"resultType": "complete", **detailed(self._task(ctx, "tasks/get", params.task_id),
                                                     ctx.protocol_version)}

    async def update(self, ctx: ServerRequestContext, params: UpdateTaskParams) -> dict[str, Any]:
        """The client's responses to the task's open input requests; acknowledged at once (the work goes on)."""
        task = self._task(ctx, "tasks/update", params.task_id)
        taken = task.inbox.answer(params.input_responses) if isinstance(task.inbox, Inbox) else 0
        if taken < len(params.input_responses):
            log.info("task %s: %d of %d input responses were for no open request (ignored)", task.id,
                     len(params.input_responses) - taken, len(params.input_responses))
        return {"resultType": "complete"}

    async def cancel(self, ctx: ServerRequestContext, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        """Stop the task's work (its model calls and open input requests end with it); a task that has already
        ended keeps its status (cancellation is eventually consistent, the extension says)."""
        task = self._task(ctx, "tasks/cancel", params.task_id)
        if task.status not in TERMINAL:
            task.set("cancelled", "cancelled by the client")
            task.scope.cancel()
        return {"resultType": "complete"}

    def serve(self, server: Server) -> None:
        """Declare the extension (``server/discover``'s ``capabilities.extensions``) and answer ``tasks/*`` by the
        request's revision: the extension's methods at 2026-07-28, the 2025-11-25 ones (already registered by
        :meth:`Tasks.serve <council.mcpserver.tasks.Tasks.serve>`) before it."""
        server.extensions[EXTENSION] = {}
        modern: dict[str, tuple[type[types.RequestParams], Handler | None]] = {
            "tasks/get": (types.GetTaskRequestParams, self.get),
            "tasks/update": (UpdateTaskParams, self.update),
            "tasks/cancel": (types.CancelTaskRequestParams, self.cancel),
            "tasks/result": (types.GetTaskPayloadRequestParams, None),
            "tasks/list": (types.PaginatedRequestParams, None)}
        for method, (params_type, handler) in modern.items():
            legacy = server.get_request_handler(method)
            server.add_request_handler(method, params_type, by_revision(
                method, legacy.handler if legacy is not None else None, handler))


def by_revision(method: str, legacy: Handler | None, modern: Handler | None) -> Handler:
    """One handler for ``method`` that answers as the request's protocol revision defines it: 2026-07-28's
    (``modern``), 2025-11-25's (``legacy``); a revision without the method (2025-06-18 and before have no tasks) gets
    -32601 (method not found)."""

    async def handle(ctx: ServerRequestContext, params: Any) -> Any:
        version = ctx.protocol_version
        handler = modern if version in MODERN_PROTOCOL_VERSIONS else legacy if version in CORE_TASKS else None
        if handler is None:
            message = f"Method not found: MCP {ctx.protocol_version} has no {method}"
            raise refusal(types.METHOD_NOT_FOUND, message, "method_not_found", method=method,
                          protocolVersion=ctx.protocol_version)
        return await handler(ctx, params)

    return handle
