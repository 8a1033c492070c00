"""pygls wiring only: registers the ``council/*`` methods, converts params and errors, bridges completions.

The sidecar is a pygls ``LanguageServer`` so vscode-languageclient can host it (``initialize`` works, documents are
ignored). Custom params arrive as raw dicts (a protocol subclass stops pygls from turning them into namedtuples),
are validated with the pydantic models of ``council.protocol``, and every failure leaves as a JSON-RPC error whose
data is ``{code, message, details}``. No domain logic lives here.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import attrs
from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from council import __version__
from council.camel import CamelModel
from council.errors import CouncilError, from_pydantic, internal_error
from council.protocol import COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD
from council.protocol.completion import CompleteParams, CompleteResult
from council.protocol.errors import JSONRPC_CODES, error_data
from council.protocol.methods import METHODS
from council.providers.base import ProviderError
from council.service import CouncilService

log = logging.getLogger(__name__)


@attrs.define
class RawRequest:
    id: Any
    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class RawNotification:
    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class RawResponse:
    id: Any
    jsonrpc: str
    result: Any = None


class CouncilProtocol(LanguageServerProtocol):
    """Keeps ``council/*`` params and results as plain JSON."""

    def get_message_type(self, method: str) -> type | None:
        if method.startswith("council/"):
            return RawNotification if method in (EVENT_METHOD, COMPLETE_DELTA_METHOD) else RawRequest
        return super().get_message_type(method)

    def get_result_type(self, method: str) -> type | None:
        if method.startswith("council/"):
            return RawResponse
        return super().get_result_type(method)


class CouncilServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("council", __version__, protocol_cls=CouncilProtocol)
        self.service: CouncilService | None = None

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log instead of popping a message in the editor (the client shows errors in the chat)."""
        log.warning("server error (%s): %s", getattr(source, "__name__", source), error)


class ClientBridge:
    """Sends ``council/complete`` to the client, routes its deltas, cancels it with ``$/cancelRequest``."""

    def __init__(self, server: CouncilServer) -> None:
        self.server = server
        self.streams: dict[str, anyio.abc.ObjectSendStream[str]] = {}

    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        msg_id = f"council-complete-{uuid.uuid4().hex[:12]}"
        send, receive = anyio.create_memory_object_stream[str](10_000)
        self.streams[params.stream_id] = send
        protocol = self.server.protocol
        try:
            future = protocol.send_request_async(COMPLETE_METHOD, params.to_wire(), msg_id=msg_id)
            async with anyio.create_task_group() as tg:
                async def pump() -> None:
                    async with receive:
                        async for text in receive:
                            await on_delta(text)
                tg.start_soon(pump)
                try:
                    raw = await future
                finally:
                    send.close()
        except anyio.get_cancelled_exc_class():
            protocol._request_futures.pop(msg_id, None)  # a late reply is then ignored, not an error
            protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise
        except JsonRpcException as exc:
            raise ProviderError(f"the client's model failed: {exc.message}", kind="client") from None
        finally:
            self.streams.pop(params.stream_id, None)
        data = raw.result if isinstance(raw, RawResponse) else raw
        try:
            return CompleteResult.model_validate(data or {})
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


def _to_jsonrpc(err: CouncilError) -> JsonRpcException:
    return JsonRpcException(message=err.message, code=JSONRPC_CODES[err.code], data=error_data(err).to_wire())


def _handler(params_model: type[CamelModel], method: str, call: Callable[[Any], Awaitable[CamelModel] | CamelModel]):
    async def handle(raw: Any) -> dict[str, Any]:
        try:
            try:
                params = params_model.model_validate(raw if raw is not None else {})
            except ValidationError as exc:
                raise from_pydantic(exc, f"params for {method}") from None
            result = call(params)
            if hasattr(result, "__await__"):
                result = await result  # type: ignore[misc]
            return result.to_wire()  # type: ignore[union-attr]
        except CouncilError as err:
            log.info("%s refused: %s", method, err.message)
            raise _to_jsonrpc(err) from None
        except JsonRpcException:
            raise
        except Exception as exc:
            log.exception("%s failed", method)
            raise _to_jsonrpc(internal_error(f"{type(exc).__name__}: {exc}")) from None

    handle.__name__ = method.replace("/", "_")
    return handle


def build_server(make_service: Callable[[Callable[[dict[str, Any]], None], ClientBridge], CouncilService]
                 ) -> CouncilServer:
    """A server whose service is built by ``make_service(event_sink, client_bridge)``."""
    server = CouncilServer()
    bridge = ClientBridge(server)
    service = make_service(lambda event: server.protocol.notify(EVENT_METHOD, event), bridge)
    server.service = service
    calls: dict[str, Callable[[Any], Any]] = {
        "council/turn": service.turn,
        "council/answer": service.answer,
        "council/cancel": lambda p: service.cancel(p.session_id),
        "council/snapshot": service.snapshot,
        "council/restore": service.restore,
        "council/personas": lambda _p: service.personas(),
        "council/providers": lambda _p: service.providers(),
    }
    for method in METHODS:
        server.feature(method.name)(_handler(method.params, method.name, calls[method.name]))

    @server.feature(COMPLETE_DELTA_METHOD)
    def complete_delta(raw: Any) -> None:
        bridge.on_delta(raw)

    @server.feature(types.SHUTDOWN)
    async def shutdown(_params: Any) -> None:
        """Cancel running sessions and close the providers' connections and models before exiting."""
        await service.aclose()

    return server
