"""The MCP server's wiring (official ``mcp`` SDK 2.x, low-level ``Server``): tools/list and tools/call on the same
:class:`~council.service.CouncilService` the sidecar uses; what a client sees is the README's "As tools: MCP and
agents". An unknown tool name is refused (-32602) before the SDK's handler, which would make it a tool result; every
failure is a tool result with ``isError: true`` and no ``structuredContent``, since the TypeScript SDK validates it
against the ``outputSchema`` even on errors.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from council import __version__
from council.consult.request import consult_language
from council.consult.runner import Asker, Reply
from council.errors import CouncilError, from_pydantic, internal_error, validation_error
from council.mcpserver.ext_tasks import ExtensionTasks, declares_tasks
from council.mcpserver.guard import MALFORMED_RESPONSE, refusal
from council.mcpserver.link import ClientLink
from council.mcpserver.roots import Workspaces
from council.mcpserver.rounds import Exchanges, RoundsLink, contract_state_errors
from council.mcpserver.sampling import CallModels
from council.mcpserver.tasks import CORE_TASKS, CouncilTask, TaskLink, Tasks
from council.mcpserver.tools import TOOLS_BY_NAME, input_schema, offered, output_schema
from council.present import consult as words
from council.present.errors import tool_error_text
from council.present.review_words import progress_line
from council.present.text import one_line
from council.protocol.constants import MAX_TEXT
from council.protocol.consult import DecisionsParams, DefinePersonasParams, ElicitedAnswer
from council.protocol.methods import ReviewParams, ReviewResult
from council.providers.sampling import ask_client
from council.review.models import CouncilRequest
from council.review.run import review_session_id
from council.service import CouncilService
from council.session.state.entities import ClarificationQuestion, new_id
from council.words import speaking, t

log = logging.getLogger(__name__)
STATE_MARGIN = 300.0  # seconds a requestState outlives the longest wait of the work it resumes
LONG = frozenset({"council_consult", "persona_consult", "council_review"})  # may run as MCP tasks (both revisions)
PROGRESS_BUFFER = 1000  # stage messages waiting to be sent (more are dropped, never block the session)
#: Seconds without a stage message after which a progress notification says the council is still at work, so a
#: client that resets its timeout on progress is never cut while the advisors think (``COUNCIL_MCP_HEARTBEAT``).
HEARTBEAT = 10.0
T = TypeVar("T")
Report = Callable[[str | None], bool]  # a progress message for the client (None, "": nothing); False: not taken


class EventRouter:
    """The service's event sink: hands each session event to the tool call running that session."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[dict[str, Any]], None]] = {}

    def __call__(self, event: dict[str, Any]) -> None:
        route = self.routes.get(str(event.get("sessionId")))
        if route is not None:
            route(event)


WORKSPACE_PARAM = {"type": "string", "title": "Workspace", "description": (
    "The absolute path of the project folder this call is about (its persona overrides, its decision memory, "
    "its files as the advisors' evidence). Default: the server's --workspace, else the client's first root.")}


def _with_workspace(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema with the MCP-only ``workspace`` argument (the language model tools have none)."""
    return {**schema, "properties": {**schema.get("properties", {}), "workspace": WORKSPACE_PARAM}}


def error_result(err: CouncilError) -> types.CallToolResult:
    """A failed call: no ``structuredContent`` (it would have to match the tool's ``outputSchema``); the text is a
    readable line, then the error as JSON ``{"error": {code, message, details}}``."""
    error = {"code": err.code.value, "message": err.message, "details": err.details}
    try:
        data = json.dumps({"error": error}, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):  # details that are not JSON are dropped; the error itself still goes
        data = json.dumps({"error": {**error, "details": {"detailsDropped": True}}}, ensure_ascii=False)
    text = tool_error_text(err.code.value, err.message, err.language)  # in the consult's language
    return types.CallToolResult(content=[types.TextContent(type="text", text=text),
                                         types.TextContent(type="text", text=data)], isError=True)


def build_mcp_server(service: CouncilService, router: EventRouter, models: CallModels, *,
                     elicitation_timeout: float, workspaces: Workspaces) -> Server:
    """``models`` puts each consult and review on a model; ``elicitation_timeout``: seconds a clarifying question
    waits for the user's answer (``--elicitation-timeout``); ``workspaces`` gives each call its service."""
    specs = {spec.name: spec for spec in offered(memory=service.archive.memory is not None,
                                                 transcripts=service.archive.transcript_dir is not None,
                                                 workspace=service.config.workspace is not None,
                                                 from_roots=workspaces.service_for is not None)}

    async def list_tools(ctx: ServerRequestContext, _params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        tasks_here = ctx.protocol_version in CORE_TASKS or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        return types.ListToolsResult(tools=[
            types.Tool(name=spec.name, title=spec.title, description=spec.description,
                       inputSchema=_with_workspace(input_schema(spec)), outputSchema=output_schema(spec),
                       execution=types.ToolExecution(task_support="optional") if spec.name in LONG and tasks_here
                       else None,  # a revision without tasks (2025-06-18 …) is offered none
                       annotations=types.ToolAnnotations(title=spec.title, readOnlyHint=spec.read_only,
                                                         destructiveHint=spec.destructive,
                                                         idempotentHint=spec.idempotent, openWorldHint=False))
            for spec in specs.values()])

    async def run_call(name: str, arguments: dict[str, Any] | None, call: Call) -> types.CallToolResult:
        """One call of a known tool; a tool that is not offered as started (``council_decisions`` without
        ``--memory``) is a tool error saying why, as is every failure."""
        try:
            arguments = dict(arguments or {})
            named = arguments.pop("workspace", None)
            if named is not None and not isinstance(named, str):
                raise validation_error("workspace must be a folder's absolute path (a string)",
                                       fields={"workspace": "not a string"})
            current = await workspaces.service(call.link, named)
            spec = specs.get(name) or TOOLS_BY_NAME[name]
            try:
                params = spec.params.model_validate(arguments)
            except ValidationError as exc:
                raise from_pydantic(exc, f"arguments for {name}") from None
            if isinstance(params, CouncilRequest):
                result = await _review(call, current, params, models)
                data, text = result.decision.to_wire(), result.compact_markdown
            else:
                if isinstance(params, DefinePersonasParams):
                    data = current.define_personas(params).to_wire()
                elif isinstance(params, DecisionsParams):
                    data = current.archive.decisions(params).to_wire()
                else:
                    data = (await _consult(call, current, router, params, models, elicitation_timeout)).to_wire()
                text = data.pop("markdown")  # the text content; structuredContent keeps the data
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structuredContent=data,
                                        isError=False)
        except CouncilError as err:
            log.info("%s refused: %s", name, err.message)
            return error_result(err)
        except Exception as exc:
            log.exception("%s failed", name)
            return error_result(internal_error(f"{name} failed: {type(exc).__name__}: {exc}"[:2000]))

    async def in_rounds(ctx: ServerRequestContext, request: types.CallToolRequestParams
                        ) -> types.CallToolResult | types.InputRequiredResult:
        """A 2026-07-28 client's call: the first round starts the work, each retry brings the answers to what the
        last one asked; a round returns the result, or what the work asks next (:mod:`council.mcpserver.rounds`)."""
        this_round = Call(ClientLink(ctx.session), ctx.request_id, ctx.meta)
        if request.request_state is None:
            capabilities = ctx.session.client_capabilities
            exchange = exchanges.start(lambda ex: run_call(request.name, request.arguments,
                                                           Call(RoundsLink(ex, capabilities), None, None)))
        else:
            exchange = exchanges.resume(request.request_state, request.input_responses)
        try:
            result = await exchange.next_round(this_round.progress)
        except anyio.get_cancelled_exc_class():  # the client cancelled the call: its work stops
            exchanges.end(exchange)
            raise
        if isinstance(result, types.CallToolResult):
            exchanges.end(exchange)
        return result

    def known(request: types.CallToolRequestParams) -> None:
        """An unknown name is a protocol error (-32602, with the contract's data)."""
        if request.name not in TOOLS_BY_NAME:
            message = f"Unknown tool: {request.name}"
            raise refusal(types.INVALID_PARAMS, message, "unknown_tool", fields={"name": "unknown tool"},
                          valid=list(specs))

    async def call_tool(ctx: ServerRequestContext, request: types.CallToolRequestParams
                        ) -> types.CallToolResult | types.InputRequiredResult | dict[str, Any]:
        known(request)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            if request.name in LONG and request.request_state is None and declares_tasks(ctx):
                return ext_tasks.start(ctx, lambda link: run_call(request.name, request.arguments,
                                                                  Call(link, None, None)))  # the Tasks extension
            return await in_rounds(ctx, request)
        return await run_call(request.name, request.arguments, Call(ClientLink(ctx.session), ctx.request_id,
                                                                    ctx.meta))

    async def as_task(ctx: ServerRequestContext, request: types.CallToolRequestParams,
                      task: CouncilTask) -> types.CallToolResult:
        return await run_call(request.name, request.arguments, Call(TaskLink(ctx.session, task), None, ctx.meta))

    exchanges, tasks = Exchanges(), Tasks()
    ext_tasks = ExtensionTasks(tasks)  # 2026-07-28's tasks, in the same store

    @asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[dict[str, Any]]:
        async with exchanges.running():
            tasks.tg = exchanges.tg
            yield {}
    server: Server = Server("council", version=__version__, on_list_tools=list_tools, on_call_tool=call_tool,
                            lifespan=lifespan)
    # a 2026-07-28 call's requestState: sealed by the SDK (a key of this process), refused in the contract's shape
    security = RequestStateSecurity.ephemeral(ttl=max(elicitation_timeout, models.bridge_timeout) + STATE_MARGIN)
    server.middleware += [contract_state_errors, RequestStateBoundary(security, default_audience="council")]
    def known_task(request: types.CallToolRequestParams) -> None:
        """A task-augmented call: a known tool that may run as a task (its ``execution.taskSupport``); another one
        is refused as the spec's default ("forbidden") says, -32601 with the contract's data."""
        known(request)
        if request.name not in LONG:
            message = f"{request.name} does not run as a task; call it without `task`"
            raise refusal(types.METHOD_NOT_FOUND, message, "task_not_supported", tools=sorted(LONG))

    tasks.serve(server, as_task, known_task)  # MCP tasks (2025-11-25): a long call polled, never cut by a timeout
    ext_tasks.serve(server)  # and 2026-07-28's Tasks extension: tasks/* answer by the request's revision

    async def roots_changed(_ctx: ServerRequestContext, _params: types.NotificationParams) -> None:
        workspaces.roots_changed()

    server.add_notification_handler("notifications/roots/list_changed", types.NotificationParams, roots_changed)
    return server


@dataclass(frozen=True)
class Call:
    """One tool call: its line back to the client, its request id and its ``_meta`` (the progress token)."""

    link: ClientLink | RoundsLink
    request_id: types.RequestId | None
    meta: Any

    @property
    def progress_token(self) -> types.ProgressToken | None:
        return self.meta.get("progress_token") if isinstance(self.meta, dict) else None

    async def progress(self, done: float, message: str) -> None:
        """A progress notification for this call (none when the client sent no progress token; a 2026-07-28
        call's goes to the round open now)."""
        await self.link.send_progress_notification(self.progress_token, done, None, message,
                                                   related_request_id=self.request_id)


async def _with_progress(call: Call, run: Callable[[Report], Awaitable[T]]) -> T:
    """Await ``run(report)``; each ``report(message)`` becomes an MCP progress notification (when the client sent
    a progress token; an empty message is none), in order, without ever blocking the work. ``run``'s exception is
    raised as is."""
    send, receive = anyio.create_memory_object_stream[str](PROGRESS_BUFFER)
    heartbeat = _heartbeat_seconds()

    def report(message: str | None) -> bool:
        """Queue ``message``; False when the buffer is full (the caller keeps what it could not say for later)."""
        try:
            if message:
                send.send_nowait(message)
            return True
        except anyio.WouldBlock:
            log.debug("progress message dropped (buffer full)")
            return False

    async def pump() -> None:
        done, started = 0, anyio.current_time()
        async with receive:
            while True:
                with anyio.move_on_after(heartbeat) as quiet:
                    try:
                        message = await receive.receive()
                    except anyio.EndOfStream:
                        return
                if quiet.cancelled_caught:  # nothing to say for a while: say the council is still at work
                    message = t("consult.stage.still", seconds=round(anyio.current_time() - started))
                done += 1
                try:
                    await call.progress(done, message)
                except Exception as exc:  # a client gone mid-call must not fail the work
                    log.debug("progress notification failed: %s", exc)

    outcome: list[Any] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        try:
            outcome.append(await run(report))
        except Exception as exc:  # raised below, not wrapped in the task group's ExceptionGroup
            outcome.append(exc)
        finally:
            send.close()
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


def _heartbeat_seconds() -> float:
    try:
        seconds = float(os.environ.get("COUNCIL_MCP_HEARTBEAT", HEARTBEAT))
    except ValueError:
        return HEARTBEAT
    return seconds if math.isfinite(seconds) and seconds > 0 else HEARTBEAT


async def _consult(call: Call, service: CouncilService, router: EventRouter, params, models: CallModels,
                   elicitation_timeout: float):
    session_id = new_id()

    async def run(report: Report):
        router.routes[session_id] = _stages(report)
        try:
            async with models.consult(call, session_id) as on_model:
                return await service.consult(params, _asker(call, elicitation_timeout), session_id, **on_model)
        finally:
            router.routes.pop(session_id, None)

    with speaking(consult_language(params)):  # the consult's language for all it says (the progress task's too),
        return await _with_progress(call, run)  # its model's refusals included


def _stages(report: Report) -> Callable[[dict[str, Any]], None]:
    """A session's event sink that reports each event's progress line; the answer's words a full buffer could not
    take are said with the next piece, never lost (each piece carries only the words since the last one)."""
    shown = [""]  # the answer's text reported so far

    def on_event(event: dict[str, Any]) -> None:
        line, after = _stage(event, shown[0])
        if line is None or report(line):
            shown[0] = after

    return on_event


def _stage(event: dict[str, Any], shown: str) -> tuple[str | None, str]:
    """The progress line of a session event, and the answer's text reported once it is sent. The answer, as the
    chair writes it, comes in whole words: each line carries the words written since the last one (``shown``: the
    text reported so far), never all of it again (that was quadratic in its length); a word still being written
    waits for the next line."""
    if event.get("type") != "answer.delta":
        return words.stage(event), shown
    text = one_line(str(event.get("text", "")))
    before = shown
    if not text.startswith(before):  # not how the reported text goes on: all of it again
        before = ""
    cut = text.rfind(" ", len(before))
    if cut <= len(before):
        return None, before
    piece = text[len(before):cut].strip()
    key = "consult.stage.answer_more" if before else "consult.stage.answer_so_far"
    return (t(key, text=piece) if piece else None), text[:cut + 1]


async def _review(call: Call, service: CouncilService, request: CouncilRequest, models: CallModels) -> ReviewResult:
    """One review; each stage (panel, every verdict, the debate, the decision) is a progress notification."""

    async def run(report: Report) -> ReviewResult:
        async with models.review(call, review_session_id(request.request_id)) as on_model:
            return await service.review(ReviewParams(request=request, **on_model),
                                        lambda kind, data: report(progress_line(kind, data)))

    return await _with_progress(call, run)


def _asker(call: Call, timeout: float) -> Asker | None:
    """Clarifying questions through MCP elicitation, when the client declared that it supports it; each waits at
    most ``timeout`` seconds for the answer."""
    client = call.link.client_capabilities
    if client is None or client.elicitation is None:
        return None

    async def ask(question: ClarificationQuestion) -> Reply:
        props: dict[str, Any] = {}
        if question.choices:
            props["choice"] = {"type": "string", "title": t("consult.choice"),
                               "enum": [c.value for c in question.choices]}
        props["answer"] = {"type": "string", "title": t("consult.your_answer"),
                           "description": t("consult.answer_hint"), "maxLength": MAX_TEXT}
        try:  # withdrawn when it expires or the call is cancelled
            result = await ask_client(call.link, lambda: call.link.elicit_form(
                words.elicit_message(question.question, question.default_assumption),
                {"type": "object", "properties": props}, related_request_id=call.request_id),
                timeout=timeout, related_request_id=call.request_id, expired=words.ELICITATION_EXPIRED)
        except TimeoutError:
            log.info("no answer to a clarifying question within %g s; the council assumes and asks no more", timeout)
            return Reply("skip_all", unanswered=True)
        except MCPError as exc:
            data = exc.error.data
            if isinstance(data, dict) and data.get("details", {}).get("reason") == MALFORMED_RESPONSE:
                raise validation_error(f"the client's answer to a clarifying question is malformed: "
                                       f"{exc.error.message}", fields={"elicitation": exc.error.message},
                                       reason=MALFORMED_RESPONSE) from None
            log.info("elicitation failed (%s); the council assumes", exc.error.message)  # the client cannot ask
            return Reply("skip_all")
        except ValidationError as exc:  # a result the SDK cannot read (an unknown action …)
            raise from_pydantic(exc, "answer to a clarifying question", prefix="elicitation") from None
        if result.action == "accept":
            try:  # the limits of council/answer: a client that ignores the form's maxLength is refused
                content = ElicitedAnswer.model_validate(result.content or {})
            except ValidationError as exc:
                raise from_pydantic(exc, "answer to a clarifying question") from None
            text = (content.answer or "").strip() or (content.choice or "").strip()
            return Reply("answer", text=text) if text else Reply("skip")
        return Reply("skip") if result.action == "decline" else Reply("skip_all")

    return ask
