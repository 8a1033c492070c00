"""pygls wiring only: registers the ``council/*`` methods as pygls features, maps errors, bridges completions.

The sidecar is a pygls ``LanguageServer`` so vscode-languageclient can host it (documents are ignored); the
transport's reader and gate sit in front, so pygls only sees messages it should serve. Params are validated with
``council.protocol``'s models; every failure leaves as a JSON-RPC error whose data is ``{code, message, details}``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
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


class ClientBridge:
    """Sends ``council/complete`` to the client, routes its deltas, cancels it with ``$/cancelRequest``."""

    def __init__(self, server: CouncilServer) -> None:
        self.server = server
        self.streams: dict[str, anyio.abc.ObjectSendStream[str]] = {}

    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        msg_id = f"council-complete-{uuid.uuid4().hex}"
        send, receive = anyio.create_memory_object_stream[str](10_000)
        self.streams[params.stream_id] = send
        protocol = self.server.protocol
        outcome: list[Any] = []
        try:
            # pygls settles the request when the client answers, even after a cancel (see council.transport)
            reply = asyncio.wrap_future(protocol.send_request(COMPLETE_METHOD, params.to_wire(), msg_id=msg_id))
            reply.add_done_callback(lambda done: done.cancelled() or done.exception())  # taken, even if unawaited
            async with anyio.create_task_group() as tg:
                async def pump() -> None:
                    async with receive:
                        async for text in receive:
                            await on_delta(text)
                tg.start_soon(pump)
                try:
                    outcome.append(await asyncio.shield(reply))
                except Exception as exc:  # kept out of the task group, which would wrap it in an ExceptionGroup
                    outcome.append(exc)
                finally:
                    send.close()
        except anyio.get_cancelled_exc_class():
            protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise
        finally:
            self.streams.pop(params.stream_id, None)
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
        send = self.streams.get(str(raw.get("streamId", "")))
        text = raw.get("text")
        if send is not None and isinstance(text, str):
            try:
                send.send_nowait(text)
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
        try:
            try:
                params = spec.params.model_validate(raw if raw is not None else {})
            except ValidationError as exc:
                raise from_pydantic(exc, f"params for {method}") from None
            # personas and providers take nothing, stop and cancel the session's id (as tests and bench call them)
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


def build_server(make_service: Callable[[Callable[[dict[str, Any]], None], ClientBridge], CouncilService]
                 ) -> CouncilServer:
    """A server whose service is built by ``make_service(event_sink, client_bridge)``."""
    server = CouncilServer()
    bridge = ClientBridge(server)
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
