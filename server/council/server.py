"""Wiring only: registers the ``council/*`` methods on the transport's endpoint and bridges completions.

The sidecar speaks just enough LSP for vscode-languageclient to host it (``council.transport``: framing,
lifecycle, dispatch, errors). Params arrive as plain JSON, are validated with the pydantic models of
``council.protocol``, and every failure leaves as a JSON-RPC error whose data is ``{code, message, details}``.
No domain logic lives here.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO

import anyio
from pydantic import ValidationError

from council import __version__
from council.camel import CamelModel
from council.errors import from_pydantic
from council.protocol import COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD
from council.protocol.completion import CompleteParams, CompleteResult
from council.protocol.methods import METHODS
from council.providers.base import ProviderError
from council.service import CouncilService
from council.transport.endpoint import Endpoint
from council.transport.jsonrpc import PeerError
from council.transport.stdio import serve_stdio

log = logging.getLogger(__name__)


class CouncilServer:
    """The endpoint with the council's methods registered, and the service behind them."""

    def __init__(self, endpoint: Endpoint, service: CouncilService) -> None:
        self.endpoint = endpoint
        self.service = service

    def serve(self, stdin_fd: int, stdout: BinaryIO) -> int:
        """Serve JSON-RPC on stdio until ``exit``; returns the process exit code."""
        return serve_stdio(self.endpoint, stdin_fd, stdout)


class ClientBridge:
    """Sends ``council/complete`` to the client, routes its deltas; cancelling sends ``$/cancelRequest``."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.streams: dict[str, anyio.abc.ObjectSendStream[str]] = {}

    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        send, receive = anyio.create_memory_object_stream[str](10_000)
        self.streams[params.stream_id] = send
        outcome: list[Any] = []
        try:
            async with anyio.create_task_group() as tg:
                async def pump() -> None:
                    async with receive:
                        async for text in receive:
                            await on_delta(text)
                tg.start_soon(pump)
                try:
                    outcome.append(await self.endpoint.request(COMPLETE_METHOD, params.to_wire()))
                except PeerError as exc:
                    outcome.append(exc)
                finally:
                    send.close()
        finally:
            self.streams.pop(params.stream_id, None)
        if isinstance(outcome[0], PeerError):
            raise ProviderError(f"the client's model failed: {outcome[0].message}", kind="client")
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


def _handler(params_model: type[CamelModel], method: str, call: Callable[[Any], Awaitable[CamelModel] | CamelModel]
             ) -> Callable[[Any], Awaitable[dict[str, Any]]]:
    """Validate params, call the service, return the wire result (CouncilErrors are mapped by the endpoint)."""

    async def handle(raw: Any) -> dict[str, Any]:
        try:
            params = params_model.model_validate(raw if raw is not None else {})
        except ValidationError as exc:
            raise from_pydantic(exc, f"params for {method}") from None
        result = call(params)
        if hasattr(result, "__await__"):
            result = await result  # type: ignore[misc]
        return result.to_wire()  # type: ignore[union-attr]

    return handle


def build_server(make_service: Callable[[Callable[[dict[str, Any]], None], ClientBridge], CouncilService]
                 ) -> CouncilServer:
    """A server whose service is built by ``make_service(event_sink, client_bridge)``."""
    endpoint = Endpoint("council", __version__)
    bridge = ClientBridge(endpoint)
    service = make_service(lambda event: endpoint.notify(EVENT_METHOD, event), bridge)
    calls: dict[str, Callable[[Any], Any]] = {
        "council/turn": service.turn,
        "council/answer": service.answer,
        "council/cancel": lambda p: service.cancel(p.session_id),
        "council/snapshot": service.snapshot,
        "council/personas": lambda _p: service.personas(),
        "council/providers": lambda _p: service.providers(),
    }
    for method in METHODS:
        endpoint.on_request(method.name, _handler(method.params, method.name, calls[method.name]))
    endpoint.on_notification(COMPLETE_DELTA_METHOD, bridge.on_delta)
    endpoint.on_shutdown(service.aclose)  # cancel running sessions, close providers' connections and models
    return CouncilServer(endpoint, service)
