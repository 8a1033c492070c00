"""pygls wiring only: registers the ``council/*`` methods as pygls features, maps errors, bridges completions.

The sidecar is a pygls ``LanguageServer`` so vscode-languageclient can host it (documents are ignored); the
transport's reader and gate sit in front, so pygls only sees messages it should serve. Params are validated with
``council.protocol``'s models; every failure leaves as a JSON-RPC error whose data is ``{code, message, details}``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, get_args

import anyio
from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from council import __version__
from council.errors import CouncilError, from_pydantic, internal_error, root_cause
from council.protocol import COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD
from council.protocol.completion import CompleteFailureReason, CompleteParams, CompleteResult
from council.protocol.methods import METHODS, EmptyParams, Method, SessionRef
from council.providers.base import ProviderError
from council.service import CouncilService
from council.transport.framing import FrameWriter
from council.transport.gate import Served
from council.transport.jsonrpc import RpcError
from council.transport.pygls_adapter import HandlerError, raw_converter

log = logging.getLogger(__name__)

NOTIFICATIONS = frozenset({COMPLETE_DELTA_METHOD})  # the registered features that are notifications
COMPLETE_IDLE_SECONDS = 600.0  # council/complete withdrawn after this long with neither a reply nor a streamed delta
IDLE_ENV = "COUNCIL_COMPLETE_TIMEOUT"  # overrides COMPLETE_IDLE_SECONDS (seconds)
WITHDRAW_WAIT_SECONDS = 10.0  # how long a model call about to start waits for its request's cancel to arrive
_REQUEST: ContextVar[asyncio.Task | None] = ContextVar("council_request", default=None)  # the handler's task


def withdrawn() -> bool:
    """Whether the request this code runs for is being cancelled, so no model call may start for it: pygls cancelled
    the handler's task (``$/cancelRequest``: marked at once, though the task and the turn's other tasks learn it
    only at their next await), or a cancel scope around the caller was cancelled or is past its deadline
    (``council/stop``, ``council/cancel``, a timeout)."""
    task = _REQUEST.get()
    if task is not None and (task.done() or task.cancelling()):
        return True
    return anyio.current_effective_deadline() <= anyio.current_time()


async def wait_unless_withdrawn() -> None:
    """Return at once, unless the request is being cancelled: then wait for the cancel to reach this task (it
    raises here). A cancel that never comes (it was withdrawn: anyio uncancels a scope's own) lets the call go after
    all; one still pending after :data:`WITHDRAW_WAIT_SECONDS` fails the call."""
    if not withdrawn():
        return
    log.debug("a model call waits for the cancel of its request instead of starting")
    with anyio.move_on_after(WITHDRAW_WAIT_SECONDS):
        while withdrawn():
            await anyio.sleep(0.05)
        return
    raise ProviderError("the request was cancelled before the model call started", kind="cancelled")


class CouncilServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("council", __version__, converter_factory=raw_converter)
        self.service: CouncilService | None = None

    def served(self) -> Served:
        return Served(self.protocol, NOTIFICATIONS, self.service.aclose if self.service is not None else None)

    def send_event(self, event: dict[str, Any]) -> None:
        """A ``council/event``, framed once by the writer (pygls's ``notify`` would encode it, and the writer decode
        and encode it again, for each of a turn's many streaming events)."""
        writer = self.protocol.writer  # the gate's FrameWriter (set_writer), once it serves
        if isinstance(writer, FrameWriter):
            writer.send({"jsonrpc": "2.0", "method": EVENT_METHOD, "params": event})

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log instead of popping a message in the editor (the client shows errors in the chat). Errors a handler
        raised on purpose were logged where they were raised."""
        if isinstance(error, RpcError):
            return
        log.warning("server error (%s): %s", getattr(source, "__name__", source), error)


@dataclass(eq=False)
class _Stream:
    """One pending ``council/complete``: where its deltas go, and when the client was last heard from on it."""

    send: anyio.abc.ObjectSendStream[str]
    heard: float = field(default_factory=time.monotonic)


class ClientBridge:
    """Sends ``council/complete`` to the client, routes its deltas, cancels it with ``$/cancelRequest``.

    Every request it sends ends: with the client's reply, an error (a malformed reply fails it in the gate), a cancel
    or a deadline — ``idle_timeout`` seconds with neither a reply nor a streamed delta, so a live stream is never cut
    and a client that never answers costs one seat's call, not the turn. A model call never starts once the request
    running its turn is being cancelled (``$/cancelRequest``, ``council/stop``, ``council/cancel``): see
    :func:`withdrawn`."""

    def __init__(self, server: CouncilServer, idle_timeout: float = COMPLETE_IDLE_SECONDS) -> None:
        self.server = server
        self.idle_timeout = idle_timeout
        self.streams: dict[str, _Stream] = {}

    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        await wait_unless_withdrawn()
        msg_id = f"council-complete-{uuid.uuid4().hex}"
        send, receive = anyio.create_memory_object_stream[str](10_000)
        self.streams[params.stream_id] = stream = _Stream(send)
        protocol = self.server.protocol
        outcome: list[Any] = []
        reply: asyncio.Future[Any] | None = None
        idle = [False]
        try:
            # the gate ends the request when the client answers, and when it is cancelled (see council.transport)
            log.debug("council/complete %s for %s", msg_id, params.purpose)
            reply = asyncio.wrap_future(protocol.send_request(COMPLETE_METHOD, params.to_wire(), msg_id=msg_id))
            reply.add_done_callback(lambda done: done.cancelled() or done.exception())  # taken, even if unawaited
            async with anyio.create_task_group() as tg:
                watch = anyio.CancelScope()

                async def pump() -> None:
                    async with receive:
                        async for text in receive:
                            await on_delta(text)

                async def deadline() -> None:
                    with watch:
                        while (left := stream.heard + self.idle_timeout - time.monotonic()) > 0:
                            await anyio.sleep(left)
                        idle[0] = True
                        log.warning("council/complete for %s: no reply and nothing streamed for %g s; withdrawn",
                                    params.purpose, self.idle_timeout)
                        protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))  # the gate ends it

                tg.start_soon(pump)
                tg.start_soon(deadline)
                try:
                    outcome.append(await asyncio.shield(reply))
                except Exception as exc:  # kept out of the task group, which would wrap it in an ExceptionGroup
                    outcome.append(exc)
                finally:
                    send.close()  # the pump forwards what was streamed, then ends
                    watch.cancel()
        except anyio.get_cancelled_exc_class():
            if reply is None or not reply.done():
                protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise
        finally:
            self.streams.pop(params.stream_id, None)
        if idle[0]:
            raise ProviderError(f"the client's model did not answer within {self.idle_timeout:g} s (nothing "
                                "streamed meanwhile)", kind="timeout")
        if isinstance(outcome[0], JsonRpcException):
            raise ProviderError(f"the client's model failed: {outcome[0].message}",
                                kind=seat_reason(getattr(outcome[0], "data", None)) or "client")
        if isinstance(outcome[0], Exception):
            raise ProviderError(f"the client's model failed: {type(outcome[0]).__name__}: {outcome[0]}",
                                kind="client")
        try:
            return CompleteResult.model_validate(outcome[0] or {})
        except ValidationError as exc:
            raise ProviderError(f"the client answered council/complete with a malformed result: {exc}",
                                kind="client") from None

    def on_delta(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            return
        stream = self.streams.get(str(raw.get("streamId", "")))
        text = raw.get("text")
        if stream is not None and isinstance(text, str):
            stream.heard = time.monotonic()  # a live stream: the deadline starts again
            try:
                stream.send.send_nowait(text)
            except (anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError):
                log.debug("dropped a completion delta for a closed stream")


def seat_reason(data: Any) -> str | None:
    """The reason a client could not use the model it was asked for (``CompleteErrorDetails.reason``), if given."""
    details = data.get("details") if isinstance(data, dict) else None
    reason = details.get("reason") if isinstance(details, dict) else None
    return reason if reason in get_args(CompleteFailureReason) else None


def _handler(spec: Method, service: CouncilService) -> Callable[[Any], Awaitable[dict[str, Any]]]:
    """A pygls feature: validate params, call the service, return the wire result; errors leave as RpcError."""
    method = spec.name

    async def handle(raw: Any) -> dict[str, Any]:
        _REQUEST.set(asyncio.current_task())  # its model calls check it (withdrawn)
        try:
            try:
                params = spec.params.model_validate(raw if raw is not None else {})
            except ValidationError as exc:
                raise from_pydantic(exc, f"params for {method}") from None
            # personas takes nothing, stop and cancel the session's id (as tests and bench call them)
            by_id = spec.params is SessionRef
            args = () if spec.params is EmptyParams else (params.session_id if by_id else params,)
            result = getattr(service, spec.handler)(*args)
            if hasattr(result, "__await__"):
                result = await result  # type: ignore[misc]
            return result.to_wire()  # type: ignore[union-attr]
        except Exception as exc:
            root = root_cause(exc)  # not "unhandled errors in a TaskGroup": what went wrong in it
            if isinstance(root, CouncilError):
                log.info("%s refused: %s", method, root.message)
                raise HandlerError.from_council(root) from None
            log.error("%s failed", method, exc_info=root)  # the traceback goes to stderr, never to the client
            raise HandlerError.from_council(internal_error(f"{method} failed: {type(root).__name__}: {root}"[:2000])
                                        ) from None

    handle.__name__ = method.replace("/", "_")
    return handle


def idle_timeout() -> float:
    """``council/complete``'s idle deadline: :data:`IDLE_ENV` when it holds a positive number of seconds."""
    raw = os.environ.get(IDLE_ENV, "").strip()
    try:
        value = float(raw) if raw else COMPLETE_IDLE_SECONDS
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        log.warning("%s=%r is not a positive number of seconds: %g s it is", IDLE_ENV, raw[:40],
                    COMPLETE_IDLE_SECONDS)
        return COMPLETE_IDLE_SECONDS
    return value


def build_server(make_service: Callable[[Callable[[dict[str, Any]], None], ClientBridge], CouncilService]
                 ) -> CouncilServer:
    """A server whose service is built by ``make_service(event_sink, client_bridge)``."""
    server = CouncilServer()
    bridge = ClientBridge(server, idle_timeout())
    service = make_service(server.send_event, bridge)
    server.service = service
    for method in METHODS:
        server.feature(method.name)(_handler(method, service))

    @server.feature(COMPLETE_DELTA_METHOD)
    def complete_delta(raw: Any) -> None:
        bridge.on_delta(raw)

    @server.feature(types.SHUTDOWN)
    async def shutdown(_params: Any) -> None:
        """Cancel running sessions and close the providers' connections and models before answering."""
        try:
            await service.aclose()
        except Exception as exc:  # shutdown still succeeds: the process is about to exit
            log.warning("closing the service at shutdown failed: %s", exc)

    return server
