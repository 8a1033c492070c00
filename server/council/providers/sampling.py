"""The MCP client's own model (README, "The client's own model"): :class:`SamplingBridge` serves ``council/complete``
over ``sampling/createMessage`` for an MCP client that declares ``sampling``, as part of the tool call running the
session (``related_request_id``: clients show and allow it there). A client that refuses a request (any error but an
internal one, which is that call's model failing) is asked nothing more for that session.

A request the council stops waiting for (a speculative debate cycle cancelled once the first vote settles) is not
withdrawn: its waiter runs on in :meth:`SamplingBridge.serving`'s task group and the answer is dropped. Cancelling the
SDK's waiter races with the answer: the SDK's receive loop sends into the waiter's closed stream, the
``ClosedResourceError`` stops the whole server and the client fails the tool call ("Canceled") — seen in the e2e.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import mcp.types as types
from mcp.shared.exceptions import McpError

from council.protocol.completion import CompleteParams, CompleteResult  # upward: this provider speaks that wire
from council.providers.base import ProviderError

log = logging.getLogger(__name__)

CHAT_MODEL_ID = "client"  # the seat id of "whatever model the client picks" (no hint)


class Sampler(Protocol):
    """What the bridge needs of an MCP server session (``mcp.server.session.ServerSession`` is one)."""

    async def create_message(self, messages: list[types.SamplingMessage], *, max_tokens: int,
                             **kwargs: Any) -> types.CreateMessageResult:
        ...


@dataclass
class Route:
    """Where one council session's model calls go: the MCP session and the tool call they belong to."""

    sampler: Sampler
    request_id: types.RequestId | None
    refusal: str | None = None


class SamplingRefused(ProviderError):
    """The MCP client answered a sampling request with an error (refused it, or had no model to use)."""

    def __init__(self, said: str) -> None:
        super().__init__(f"the MCP client did not sample: {said}", kind="client")
        self.said = said


class SamplingBridge:
    """Serves ``council/complete`` for the council sessions routed to an MCP client (:meth:`route`)."""

    names_models = True  # the reply names the model that answered; a hint is only a preference

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self._waiters: anyio.abc.TaskGroup | None = None

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        """While the block runs (the MCP server's life), a request the council stops waiting for keeps its waiter
        until the client answers (see the module docstring); at the end, the waiters left are cancelled."""
        async with anyio.create_task_group() as tg:
            self._waiters = tg
            try:
                yield
            finally:
                self._waiters = None
                tg.cancel_scope.cancel()

    async def _detached(self, call: Callable[[], Awaitable[types.CreateMessageResult]]) -> types.CreateMessageResult:
        """``await call()``, but a cancelled caller leaves ``call`` running to its end (its result dropped)."""
        if self._waiters is None:
            return await call()
        done = anyio.Event()
        outcome: list[Any] = []

        async def wait() -> None:
            try:
                outcome.append(await call())
            except Exception as exc:  # handed to the caller (if it still waits)
                outcome.append(exc)
            finally:
                done.set()

        self._waiters.start_soon(wait)
        await done.wait()
        if not outcome:  # the server is stopping: its waiters were cancelled
            raise ProviderError("the MCP server stopped before the client's model answered", kind="connection")
        if isinstance(outcome[0], Exception):
            raise outcome[0]
        return outcome[0]

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
            result = await self._detached(lambda: route.sampler.create_message(
                messages, max_tokens=params.max_tokens, system_prompt=system or None, include_context="none",
                temperature=params.temperature, model_preferences=preferences(params.model_id),
                metadata={"purpose": params.purpose, **schema}, related_request_id=route.request_id))
        except McpError as exc:
            said = " ".join((exc.error.message or f"error {exc.error.code}").split())[:300]
            if exc.error.code == types.INTERNAL_ERROR:  # its model failed this call: the seat may fall back
                raise ProviderError(f"the MCP client's model failed: {said}", kind="client") from None
            route.refusal = said
            log.info("the MCP client refused a sampling request for %s: %s", params.purpose, said)
            raise SamplingRefused(said) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            raise ProviderError("the MCP client went away before its model answered", kind="connection") from None
        if not isinstance(result.content, types.TextContent):
            raise ProviderError(f"the MCP client's model answered with {result.content.type} content, not text",
                                kind="client")
        return CompleteResult(text=result.content.text, model=result.model or None)


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
