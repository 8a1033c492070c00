"""The MCP server's wiring (official ``mcp`` SDK 1.x, low-level ``Server``): tools/list and tools/call on top of
the same :class:`~council.service.CouncilService` the JSON-RPC sidecar uses.

Per call: arguments are validated with the wire models (a bad one is a tool error, not a protocol error); a
consult reports each stage as an MCP progress notification when the client sent a progress token; clarifying
questions go to the user through MCP elicitation when the client declared it (an answer is used, a decline
becomes a logged assumption, a dismissal skips the rest); the result is ``structuredContent`` (validated by
clients against the tool's ``outputSchema``) plus a compact text rendering. Every failure is a tool result with
``isError: true`` and ``{"error": {code, message, details}}``. A client's ``notifications/cancelled`` cancels the
call, its session and every model call in flight.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import McpError
from pydantic import ValidationError

from council import __version__
from council.consult.runner import Asker, Reply
from council.errors import CouncilError, from_pydantic, internal_error, validation_error
from council.mcpserver.tools import MCP_ONLY, TOOLS, TOOLS_BY_NAME, ToolSpec, input_schema, output_schema
from council.present import consult as words
from council.protocol.consult import DefinePersonasParams
from council.protocol.decisions import DecisionsParams
from council.service import CouncilService
from council.session.entities import ClarificationQuestion, new_id

log = logging.getLogger(__name__)
PROGRESS_BUFFER = 1000  # stage messages waiting to be sent (more are dropped, never block the session)


class EventRouter:
    """The service's event sink: hands each session event to the tool call running that session."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[dict[str, Any]], None]] = {}

    def __call__(self, event: dict[str, Any]) -> None:
        route = self.routes.get(str(event.get("sessionId")))
        if route is not None:
            route(event)


def tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(name=spec.name, title=spec.title, description=spec.description,
                      inputSchema=input_schema(spec), outputSchema=output_schema(spec),
                      annotations=types.ToolAnnotations(title=spec.title, readOnlyHint=spec.read_only,
                                                        destructiveHint=False, idempotentHint=spec.idempotent,
                                                        openWorldHint=False))


def error_result(err: CouncilError) -> types.CallToolResult:
    error = {"code": err.code.value, "message": err.message, "details": err.details}
    return types.CallToolResult(content=[types.TextContent(type="text", text=words.error_text(err.code.value,
                                                                                              err.message))],
                                structuredContent={"error": error}, isError=True)


def build_mcp_server(service: CouncilService, router: EventRouter) -> Server:
    server: Server = Server("council", version=__version__)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        memory = [tool(spec) for spec in MCP_ONLY if service.archive.memory is not None]
        return [tool(spec) for spec in TOOLS] + memory

    @server.call_tool(validate_input=False)  # the wire models validate, with the contract's error shape
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            return await _call(server, service, router, name, arguments)
        except CouncilError as err:
            log.info("%s refused: %s", name, err.message)
            return error_result(err)
        except Exception as exc:
            log.exception("%s failed", name)
            return error_result(internal_error(f"{name} failed: {type(exc).__name__}: {exc}"[:2000]))

    return server


async def _call(server: Server, service: CouncilService, router: EventRouter, name: str,
                arguments: dict[str, Any] | None) -> types.CallToolResult:
    spec = TOOLS_BY_NAME.get(name)
    if spec is None:
        raise validation_error(f"unknown tool {name!r}", fields={"name": "unknown tool"}, valid=list(TOOLS_BY_NAME))
    try:
        params = spec.params.model_validate(arguments or {})
    except ValidationError as exc:
        raise from_pydantic(exc, f"arguments for {name}") from None
    if isinstance(params, DefinePersonasParams):
        data = service.define_personas(params).to_wire()
    elif isinstance(params, DecisionsParams):
        data = service.archive.decisions(params).to_wire()
    else:
        data = (await _consult(server.request_context, service, router, params)).to_wire()
    text = data.pop("markdown")  # the text content; structuredContent keeps the data
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structuredContent=data,
                                isError=False)


async def _consult(ctx, service: CouncilService, router: EventRouter, params):
    token = ctx.meta.progressToken if ctx.meta is not None else None
    session_id = new_id()
    send, receive = anyio.create_memory_object_stream[str](PROGRESS_BUFFER)

    def on_event(event: dict[str, Any]) -> None:
        message = words.stage(event)
        if message:
            try:
                send.send_nowait(message)
            except anyio.WouldBlock:
                log.debug("progress message dropped (buffer full)")

    async def pump() -> None:
        done = 0
        async with receive:
            async for message in receive:
                done += 1
                if token is None:
                    continue
                try:
                    await ctx.session.send_progress_notification(token, done, None, message,
                                                                 related_request_id=ctx.request_id)
                except Exception as exc:  # a client gone mid-call must not fail the consult
                    log.debug("progress notification failed: %s", exc)

    router.routes[session_id] = on_event
    outcome: list[Any] = []
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            try:
                outcome.append(await service.consult(params, _asker(ctx), session_id))
            except Exception as exc:  # raised below, not wrapped in the task group's ExceptionGroup
                outcome.append(exc)
            finally:
                send.close()
    finally:
        router.routes.pop(session_id, None)
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


def _asker(ctx) -> Asker | None:
    """Clarifying questions through MCP elicitation, when the client declared that it supports it."""
    client = ctx.session.client_params
    if client is None or client.capabilities.elicitation is None:
        return None

    async def ask(question: ClarificationQuestion) -> Reply:
        props: dict[str, Any] = {}
        if question.choices:
            props["choice"] = {"type": "string", "title": words.CHOICE_TITLE,
                               "enum": [c.value for c in question.choices]}
        props["answer"] = {"type": "string", "title": words.ANSWER_TITLE, "description": words.ANSWER_HINT}
        try:
            result = await ctx.session.elicit_form(
                words.elicit_message(question.question, question.default_assumption),
                {"type": "object", "properties": props}, related_request_id=ctx.request_id)
        except McpError as exc:  # the client could not ask: go on as if nobody could
            log.info("elicitation failed (%s); the council assumes", exc.error.message)
            return Reply("skip_all")
        if result.action == "accept":
            content = result.content or {}
            text = str(content.get("answer") or "").strip() or str(content.get("choice") or "").strip()
            return Reply("answer", text=text) if text else Reply("skip")
        return Reply("skip") if result.action == "decline" else Reply("skip_all")

    return ask
