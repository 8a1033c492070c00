"""The MCP client's own model (README, "The client's own model"): :class:`SamplingBridge` serves ``council/complete``
over ``sampling/createMessage`` for an MCP client that declares ``sampling``, as part of the tool call running the
session (``related_request_id``: clients show and allow it there). A client that refuses a request (an error with a
code and a message, but an internal one, which is that call's model failing) is asked nothing more for that session.
A reply that is not a usable model reply — malformed (the transport's ``malformed_response``: not JSON, no result,
a result that is not one), a result the SDK cannot read, content that is not text — is that call's model failing
(``ProviderError`` kind ``client``, as a malformed ``council/complete`` result is over the sidecar), saying what the
client sent; never a refusal.

Every request ends (:func:`ask_client`, which elicitation uses too): with the client's answer or error, at its
deadline (``timeout``, ``--sampling-timeout``), or when the council stops waiting for it — a cancelled tool call,
a speculative debate cycle cancelled once the first vote settles. Then it is withdrawn: the client gets
``notifications/cancelled`` for it, so its model stops generating. The SDK's waiter is never cancelled while an answer
may be on its way (the SDK's receive loop would send into a closed stream, and the ``ClosedResourceError`` stops the
whole server — seen in the e2e): the transport ends it with an error once the request is withdrawn
(``council.mcpserver.stdio``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import anyio
import mcp.types as types
from mcp.shared.exceptions import MCPError as McpError  # the SDK 2.x name
from pydantic import ValidationError

from council.mcpserver.guard import MALFORMED_RESPONSE, WITHDRAWN  # upward: the errors that end a request
from council.protocol.completion import CompleteParams, CompleteResult  # upward: this provider speaks that wire
from council.providers.base import ProviderError

log = logging.getLogger(__name__)

CHAT_MODEL_ID = "client"  # the seat id of "whatever model the client picks" (no hint)
WITHDRAW_GRACE = 5.0  # seconds a withdrawn request waits for the error that ends it (the transport's, at once)
CANCELLED = "the council no longer needs this reply"  # the cancellation's reason (for the client's log)
T = TypeVar("T")


class ClientLink(Protocol):
    """What :func:`ask_client` needs of an MCP server session (``mcp.server.session.ServerSession`` is one): the id
    its next request takes, and a way to notify."""

    _request_id: int

    async def send_notification(self, notification: types.ServerNotification,
                                related_request_id: types.RequestId | None = None) -> None:
        ...


class Sampler(ClientLink, Protocol):
    """What the bridge needs of an MCP server session."""

    async def create_message(self, messages: list[types.SamplingMessage], *, max_tokens: int,
                             **kwargs: Any) -> types.CreateMessageResult:
        ...


async def ask_client(session: ClientLink, send: Callable[[], Awaitable[T]], *, timeout: float | None,
                     related_request_id: types.RequestId | None, expired: str | None = None) -> T:
    """``await send()`` — one request to the MCP client on ``session`` — so that it ends: the client's answer (an
    error is raised as ``McpError``), or, after ``timeout`` seconds (None: none), ``TimeoutError``; a cancelled
    caller stays cancelled. In both cases the request is withdrawn first (``notifications/cancelled``, its reason
    ``expired`` or "no answer within … s" at the deadline)."""
    outcome: list[Any] = []
    done = anyio.Event()
    sent: list[types.RequestId | None] = []
    abandoned = [False]
    waiter = anyio.CancelScope(shield=True)  # the SDK's wait, never cancelled by the caller's cancellation

    async def wait() -> None:
        try:
            with waiter:
                if abandoned[0]:
                    return
                sent.append(getattr(session, "_request_id", None))  # the id send() takes (the SDK assigns it
                # before send's first await); None: a session that does not say, whose request cannot be withdrawn
                try:
                    outcome.append(await send())
                except Exception as exc:
                    outcome.append(exc)
        finally:
            done.set()

    async def withdraw(reason: str) -> None:
        abandoned[0] = True
        with anyio.CancelScope(shield=True):
            if sent and sent[0] is not None and not done.is_set():
                try:
                    await session.send_notification(types.CancelledNotification(
                        params=types.CancelledNotificationParams(requestId=sent[0], reason=reason)),
                        related_request_id=related_request_id)
                except Exception as exc:  # a client gone mid-call: its wait ends below
                    log.debug("could not withdraw request %s: %s", sent[0], exc)
                with anyio.move_on_after(WITHDRAW_GRACE):
                    await done.wait()
            if not done.is_set():  # never sent, or no error came to end it (the transport is gone)
                waiter.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait)
        try:
            with anyio.move_on_after(timeout) as deadline:
                await done.wait()
        except anyio.get_cancelled_exc_class():
            await withdraw(CANCELLED)
            raise
        if deadline.cancelled_caught:
            await withdraw(expired or f"no answer within {timeout:g} s")
    if not outcome or (deadline.cancelled_caught and _withdrawn(outcome[0])):
        raise TimeoutError(f"no answer within {timeout:g} s")
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


def _withdrawn(outcome: Any) -> bool:
    return isinstance(outcome, McpError) and _reason(outcome) == WITHDRAWN


def _details(exc: McpError) -> dict[str, Any]:
    """``data.details`` of an error in the contract's shape (the transport's own errors are), else empty."""
    data = exc.error.data
    details = data.get("details") if isinstance(data, dict) else None
    return details if isinstance(details, dict) else {}


def _reason(exc: McpError) -> Any:
    return _details(exc).get("reason")


@dataclass
class Route:
    """Where one council session's model calls go: the MCP session and the tool call they belong to; ``refusal``:
    what the client said when it refused; ``faults``: what was wrong with the replies its model failed with."""

    sampler: Sampler
    request_id: types.RequestId | None
    refusal: str | None = None
    faults: list[str] = field(default_factory=list)


class SamplingRefused(ProviderError):
    """The MCP client answered a sampling request with an error (refused it, or had no model to use)."""

    def __init__(self, said: str) -> None:
        super().__init__(f"the MCP client did not sample: {said}", kind="client")
        self.said = said


class SamplingBridge:
    """Serves ``council/complete`` for the council sessions routed to an MCP client (:meth:`route`); each request
    waits at most ``timeout`` seconds for the client's model."""

    names_models = True  # the reply names the model that answered; a hint is only a preference

    def __init__(self, timeout: float) -> None:
        self.routes: dict[str, Route] = {}
        self.timeout = timeout

    @contextmanager
    def route(self, session_id: str, sampler: Sampler, request_id: types.RequestId | None) -> Iterator[Route]:
        """While the block runs, ``session_id``'s model calls go to ``sampler`` as part of request ``request_id``."""
        route = self.routes[session_id] = Route(sampler, request_id)
        try:
            yield route
        finally:
            self.routes.pop(session_id, None)

    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        """One ``sampling/createMessage``; sampling does not stream, so the caller forwards the whole text."""
        route = self.routes.get(params.session_id)
        if route is None:
            raise ProviderError("the MCP client's model serves only the tool call that runs the session, and that "
                                "call has ended", kind="config")
        if route.refusal is not None:  # asked once per session: no prompt after prompt for a user who said no
            raise SamplingRefused(route.refusal)
        system, messages = to_sampling(params)
        schema = {} if params.json_schema is None else {"response_schema": params.json_schema}
        try:
            result = await ask_client(route.sampler, lambda: route.sampler.create_message(
                messages, max_tokens=params.max_tokens, system_prompt=system or None, include_context="none",
                temperature=params.temperature, model_preferences=preferences(params.model_id),
                metadata={"purpose": params.purpose, **schema}, related_request_id=route.request_id),
                timeout=self.timeout, related_request_id=route.request_id)
        except McpError as exc:
            said = " ".join((exc.error.message or f"error {exc.error.code}").split())[:300]
            if _reason(exc) == MALFORMED_RESPONSE:
                raise self._failed(route, f"its reply was malformed: {_details(exc).get('problem', said)}") from None
            if exc.error.code == types.INTERNAL_ERROR or _reason(exc) == WITHDRAWN:
                raise self._failed(route, said) from None  # its model failed this call: the seat may fall back
            route.refusal = said
            log.info("the MCP client refused a sampling request for %s: %s", params.purpose, said)
            raise SamplingRefused(said) from None
        except ValidationError as exc:  # a result that is no CreateMessageResult (no model, no content …)
            raise self._failed(route, _unreadable(exc)) from None
        except TimeoutError:
            log.info("the MCP client's model did not answer %s within %g s", params.purpose, self.timeout)
            raise ProviderError(f"the MCP client's model did not answer within {self.timeout:g} s",
                                kind="timeout") from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            raise ProviderError("the MCP client went away before its model answered", kind="connection") from None
        if not isinstance(result.content, types.TextContent):
            raise self._failed(route, f"it answered with {result.content.type} content, not text")
        return CompleteResult(text=result.content.text, model=result.model or None)

    @staticmethod
    def _failed(route: Route, said: str) -> ProviderError:
        """The client's model failed this call (``said``: what was wrong): a seat failure, never a refusal."""
        route.faults.append(said)
        return ProviderError(f"the client's model failed: {said}", kind="client")  # shown as the client's words


def _unreadable(exc: ValidationError) -> str:
    """What is wrong with a result the SDK could not read, in one line: the fields and why."""
    problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'result'}: {e['msg']}" for e in exc.errors()[:5])
    return f"its reply was malformed: {problems}"


def to_sampling(params: CompleteParams) -> tuple[str, list[types.SamplingMessage]]:
    """The system prompt (every system message, in order) and the user/assistant messages as text content."""
    system = "\n\n".join(m.content for m in params.messages if m.role == "system")
    rest = [types.SamplingMessage(role=m.role, content=types.TextContent(type="text", text=m.content))
            for m in params.messages if m.role != "system"]
    if not rest:  # sampling needs one message; a prompt that is all system text becomes the user's
        rest = [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=system))]
        system = ""
    return system, rest


def preferences(model_id: str | None) -> types.ModelPreferences | None:
    """The seat's model as the client's hint; none for the chat's model (the client chooses)."""
    if not model_id or model_id == CHAT_MODEL_ID:
        return None
    return types.ModelPreferences(hints=[types.ModelHint(name=model_id)])
