"""Tool calls of MCP 2026-07-28 clients, which take no server→client requests: a consult's clarifying questions
(elicitation) and its calls on the client's model (``sampling/createMessage``) go out as the input requests of an
``InputRequiredResult``, and the client retries the call with their answers and the ``requestState`` it was given
(the multi-round-trip requests of SEP-2322; the SDK seals and checks that state, :class:`RequestStateBoundary`).

A call's work runs once, in the server's task group, as for a 2025-11-25 client: :class:`Exchange` holds it across
the rounds. Its :class:`RoundsLink` stands where the client's session stands for a handshake client — what the work
asks waits as a :class:`Need` until a round hands it out and the next round brings its answer — so every timeout,
fallback and error of the consult stays as it is. The state a round returns names the exchange and the round
(``{"x": id, "r": n}``); a state from an earlier round (a replay), for an exchange that is gone, or one the SDK cannot
verify (forged, expired, another call's) is refused with ``validation`` (reason ``invalid_request_state``). An
exchange whose result nobody fetches is dropped after :data:`KEEP_RESULT` seconds; one whose client stops coming back
ends by the work's own deadlines (a question unanswered becomes an assumption, a model call fails).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import anyio
import anyio.abc
import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from council.mcpserver.guard import refusal

log = logging.getLogger("council.mcp")

ResultT = TypeVar("ResultT", bound=BaseModel)
SETTLE = 0.15  # seconds a round waits, after the first need, for the needs asked beside it (advisors in parallel)
KEEP_RESULT = 600.0  # seconds a finished exchange keeps its result for the client's next round
MAX_EXCHANGES = 64  # exchanges held at once; a new call beyond that is refused
INVALID_STATE = "invalid_request_state"


def refused_state(message: str, **details: Any) -> MCPError:
    """The error for a ``requestState`` that cannot be used: -32602 with the contract's ``data``."""
    return refusal(types.INVALID_PARAMS, message, INVALID_STATE, fields={"requestState": message}, **details)


async def contract_state_errors(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
    """Middleware outside the SDK's :class:`RequestStateBoundary`: its refusal (a frozen "Invalid or expired
    requestState", the reason in the server log only) in the contract's shape, saying what may be wrong."""
    try:
        return await call_next(ctx)
    except MCPError as exc:
        if isinstance(exc.data, dict) and exc.data.get("reason") == INVALID_STATE:
            raise refused_state("the requestState is not one this server issued for this call, or it has expired "
                                "(forged, altered, for other arguments, or older than its time to live): start the "
                                "call again without it") from None
        raise


def input_key(request: types.CreateMessageRequest | types.ElicitRequest, count: int) -> str:
    """The key of a call's ``count``-th input request (``q``: a question, ``m``: a call on the client's model):
    never used twice in one call."""
    return f"{'q' if isinstance(request, types.ElicitRequest) else 'm'}{count}"


@dataclass
class Need:
    """One thing the work waits for from the client: an input request and, once a round brings it, its answer."""

    request: types.CreateMessageRequest | types.ElicitRequest
    answer: Any = None
    answered: anyio.Event = field(default_factory=anyio.Event)

    def give(self, answer: Any) -> None:
        self.answer = answer
        self.answered.set()


class Exchange:
    """One tool call's work across its rounds."""

    def __init__(self, exchange_id: str) -> None:
        self.id = exchange_id
        self.round = 0
        self.waiting: dict[str, Need] = {}  # asked by the work, not handed out yet
        self.out: dict[str, Need] = {}  # handed out in the last round, their answers due in the next
        self.count = 0
        self.changed = anyio.Event()
        self.done = anyio.Event()
        self.result: types.CallToolResult | None = None
        self.progress: Callable[[float, str], Awaitable[None]] | None = None  # the open round's progress
        self.scope = anyio.CancelScope()
        self.claimed = 0  # the last round whose state a retry brought (each is used once)

    def _poke(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def ask(self, request: types.CreateMessageRequest | types.ElicitRequest) -> Any:
        """Wait for the client's answer to ``request`` (raw, as it came); cancelled with the work."""
        self.count += 1
        key = input_key(request, self.count)
        need = self.waiting[key] = Need(request)
        self._poke()
        try:
            await need.answered.wait()
        finally:
            self.waiting.pop(key, None)
            self.out.pop(key, None)
        return need.answer

    def finish(self, result: types.CallToolResult) -> None:
        self.result = result
        self.done.set()
        self._poke()

    def deliver(self, responses: dict[str, Any] | None) -> None:
        """The answers a round brought, each to its need; one not brought is a need the client did not answer."""
        responses = responses or {}
        for key, need in list(self.out.items()):
            need.give(responses.get(key))
        self.out.clear()

    async def next_round(self, progress: Callable[[float, str], Awaitable[None]]) -> types.CallToolResult | \
            types.InputRequiredResult:
        """Wait until the work ends (its result) or asks the client something (the input requests, with the state
        of the next round); meanwhile its progress goes to this round's request."""
        self.progress = progress
        try:
            while not self.done.is_set() and not self.waiting:
                await self.changed.wait()
            if not self.done.is_set():
                await anyio.sleep(SETTLE)
        finally:
            self.progress = None
        if self.done.is_set():
            assert self.result is not None
            return self.result
        self.round += 1
        self.out = dict(self.waiting)
        self.waiting.clear()
        state = json.dumps({"x": self.id, "r": self.round})
        return types.InputRequiredResult(input_requests={k: n.request for k, n in self.out.items()},
                                         request_state=state)


class Exchanges:
    """The exchanges of this server (one process: the state of each lives here, the client holds its key)."""

    def __init__(self) -> None:
        self.live: dict[str, Exchange] = {}
        self.tg: anyio.abc.TaskGroup | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Exchanges]:
        """The server's lifespan: the task group the exchanges' work runs in."""
        async with anyio.create_task_group() as tg:
            self.tg = tg
            try:
                yield self
            finally:
                tg.cancel_scope.cancel()

    def start(self, work: Callable[[Exchange], Awaitable[types.CallToolResult]]) -> Exchange:
        """A new exchange running ``work``."""
        if self.tg is None or len(self.live) >= MAX_EXCHANGES:
            message = f"{len(self.live)} tool calls are waiting for their clients; finish one first"
            raise refusal(types.INVALID_REQUEST, message, "too_many_calls", limit=MAX_EXCHANGES)
        exchange = Exchange(secrets.token_urlsafe(12))
        self.live[exchange.id] = exchange

        async def run() -> None:
            try:
                with exchange.scope:
                    exchange.finish(await work(exchange))
                    await anyio.sleep(KEEP_RESULT)  # kept for the round that fetches it (:meth:`fetched` ends it)
            finally:
                self.live.pop(exchange.id, None)
                if not exchange.done.is_set():  # cancelled: a round still waiting hears it
                    exchange.finish(types.CallToolResult(content=[types.TextContent(
                        type="text", text="the call was cancelled")], is_error=True))

        self.tg.start_soon(run)
        return exchange

    def resume(self, state: str, responses: dict[str, Any] | None) -> Exchange:
        """The exchange a (verified) ``requestState`` names, given the round's answers; a replayed state, or one
        whose exchange is gone, is refused."""
        try:
            claims = json.loads(state)
            exchange_id, round_no = claims["x"], claims["r"]
        except (ValueError, KeyError, TypeError):
            raise refused_state("the requestState cannot be read") from None
        exchange = self.live.get(exchange_id)
        if exchange is None:
            raise refused_state("the call this requestState belongs to has ended, or its result was already "
                                "fetched: start the call again without it")
        if exchange.claimed == round_no or round_no != exchange.round:
            said = "was already used" if exchange.claimed == round_no else \
                f"is from round {round_no} of the call, which is at round {exchange.round}"
            raise refused_state(f"this requestState {said}: each is used once (a replayed state is refused)",
                                round=exchange.round)
        exchange.claimed = round_no
        exchange.deliver(responses)
        return exchange

    def end(self, exchange: Exchange) -> None:
        """The client has the exchange's result, or cancelled the call: it is gone (no state reaches it again)."""
        self.live.pop(exchange.id, None)
        exchange.scope.cancel()


class Asks(Protocol):
    """Where a 2026-07-28 call's work asks the client: an :class:`Exchange` (its rounds) or a task's inbox
    (:class:`~council.mcpserver.ext_tasks.Inbox`); ``progress`` takes the work's progress lines (None: nobody)."""

    progress: Callable[[float, str], Awaitable[None]] | None

    async def ask(self, request: types.CreateMessageRequest | types.ElicitRequest) -> Any: ...


class RoundsLink:
    """Where the client's session stands for a 2026-07-28 call: what the work asks becomes a :class:`Need`
    of its exchange (or its task's inbox); capabilities are the request envelope's; there are no roots and nothing
    to withdraw."""

    def __init__(self, exchange: Asks, capabilities: types.ClientCapabilities | None) -> None:
        self.exchange = exchange
        self.client_capabilities = capabilities
        self.client_params = None  # no handshake: roots are never asked
        self._request_id = None  # ask_client withdraws nothing: an input request has no id of its own

    async def send_notification(self, notification: BaseModel, related_request_id: Any = None) -> None:
        log.debug("not sent to a 2026-07-28 client: %s", getattr(notification, "method", notification))

    async def send_progress_notification(self, _token: Any, progress: float, _total: float | None,
                                         message: str | None, related_request_id: Any = None) -> None:
        send = self.exchange.progress
        if send is not None and message:
            await send(progress, message)

    async def _ask(self, request: types.CreateMessageRequest | types.ElicitRequest,
                   result_type: type[ResultT]) -> ResultT:
        answer = await self.exchange.ask(request)
        if answer is None:
            raise MCPError(types.INVALID_REQUEST, f"the client brought no answer to its {request.method}")
        if isinstance(answer, BaseModel):
            answer = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
        return result_type.model_validate(answer, by_name=False)  # a malformed one: the SDK's ValidationError

    async def create_message(self, messages: list[types.SamplingMessage], *, max_tokens: int,
                             related_request_id: Any = None, **kwargs: Any) -> types.CreateMessageResult:
        params = types.CreateMessageRequestParams(messages=messages, max_tokens=max_tokens, **kwargs)
        return await self._ask(types.CreateMessageRequest(params=params), types.CreateMessageResult)

    async def elicit_form(self, message: str, requested_schema: dict[str, Any],
                          related_request_id: Any = None) -> types.ElicitResult:
        params = types.ElicitRequestFormParams(message=message, requested_schema=requested_schema)
        return await self._ask(types.ElicitRequest(params=params), types.ElicitResult)
