"""The client side of the sidecar: start ``council serve`` as a subprocess (:func:`start_sidecar`, used by ``council
ask`` and the headless tests) and speak JSON-RPC 2.0 to it on the sidecar's own framing (strict mode) and envelopes.
Any byte that is not part of a well-formed frame, and any message that is not JSON-RPC 2.0, is a
:class:`FramingError`: this is how the tests prove stdout carries the protocol only.
"""

from __future__ import annotations

import itertools
import logging
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process, TaskGroup

from council.protocol import COMPLETE_METHOD, EVENT_METHOD
from council.transport.framing import Fault, FrameReader, Message, encode_frame
from council.transport.jsonrpc import Dropped, Notification, Request, Response, classify

log = logging.getLogger(__name__)

Handler = Callable[[Any], Awaitable[Any]]
Listener = Callable[[str, Any], None]


class FramingError(Exception):
    """The peer wrote bytes that are not a well-formed JSON-RPC frame."""


class RpcError(Exception):
    """The peer answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.data = data


class Connection:
    def __init__(self, receive: ByteReceiveStream, send: ByteSendStream) -> None:
        self._receive = receive
        self._send = send
        self._reader = FrameReader(sys.maxsize, strict=True)  # the sidecar's frames have no size cap
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[anyio.Event, list[Any]]] = {}
        self._handlers: dict[str, Handler] = {}
        self._listeners: list[Listener] = []
        self._send_lock = anyio.Lock()
        self._tg: TaskGroup | None = None
        self.closed = anyio.Event()
        self.failure: BaseException | None = None

    def on_request(self, method: str, handler: Handler) -> None:
        self._handlers[method] = handler

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    async def run(self, tg: TaskGroup) -> None:
        self._tg = tg
        try:
            while chunk := await self._receive_chunk():
                for event in self._reader.feed(chunk):
                    if (message := _envelope(event)) is not None:
                        self._dispatch(message)
            if (fault := self._reader.close()) is not None:
                raise FramingError(f"stray bytes at end of stream: {fault.message}")
        except BaseException as exc:
            self.failure = exc
            if not isinstance(exc, (anyio.get_cancelled_exc_class(), anyio.EndOfStream)):
                log.debug("connection failed: %s", exc)
            if not isinstance(exc, (FramingError, anyio.EndOfStream, anyio.ClosedResourceError)):
                raise
        finally:
            self.closed.set()
            for event, box in self._pending.values():
                box.append(RpcError(-32099, "connection closed"))
                event.set()

    async def _receive_chunk(self) -> bytes:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return b""

    def _dispatch(self, message: Request | Notification | Response) -> None:
        if isinstance(message, Request):
            assert self._tg is not None
            self._tg.start_soon(self._serve, message)
        elif isinstance(message, Notification):
            for listener in self._listeners:
                listener(message.method, message.params)
        elif (entry := self._pending.pop(message.id, None)) is not None:
            event, box = entry
            err = message.error
            box.append(message.result if err is None else RpcError(err["code"], err["message"], err.get("data")))
            event.set()

    async def _serve(self, request: Request) -> None:
        handler = self._handlers.get(request.method)
        try:
            if handler is None:
                raise RpcError(-32601, f"method not found: {request.method}")
            outcome: dict[str, Any] = {"result": await handler(request.params)}
        except RpcError as exc:
            outcome = {"error": {"code": exc.code, "message": exc.message, "data": exc.data}}
        except Exception as exc:
            outcome = {"error": {"code": -32603, "message": f"{type(exc).__name__}: {exc}"}}
        await self._write({"jsonrpc": "2.0", "id": request.id, **outcome})

    async def _write(self, message: dict[str, Any]) -> None:
        async with self._send_lock:
            await self._send.send(encode_frame(message))

    async def notify(self, method: str, params: Any = None) -> None:
        await self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any = None) -> Any:
        if self.closed.is_set():  # nothing will answer it (the pending calls were settled when it closed)
            raise RpcError(-32099, "connection closed")
        msg_id = next(self._ids)
        event: anyio.Event = anyio.Event()
        box: list[Any] = []
        self._pending[msg_id] = (event, box)
        await self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        try:
            await event.wait()
        except anyio.get_cancelled_exc_class():
            self._pending.pop(msg_id, None)
            with anyio.CancelScope(shield=True):
                await self.notify("$/cancelRequest", {"id": msg_id})
            raise
        result = box[0]
        if isinstance(result, RpcError):
            raise result
        return result


def _envelope(event: Message | Fault) -> Request | Notification | Response | None:
    """The message in ``event`` (None: a response with no usable id, an error answering nothing this client sent),
    or :class:`FramingError` for anything a strict client refuses."""
    if isinstance(event, Fault):
        raise FramingError(event.message)
    envelope = classify(event.value)
    if isinstance(envelope, Dropped) and not event.length_mismatch:
        return None
    if event.length_mismatch or not isinstance(envelope, (Request, Notification, Response)):
        raise FramingError(f"not a JSON-RPC 2.0 message: {str(event.value)[:80]!r}")
    return envelope


class Sidecar:
    """A running sidecar: ``call`` any council method; events arrive at the registered listeners."""

    def __init__(self, process: Process, connection: Connection) -> None:
        self.process = process
        self.rpc = connection
        self.events: list[dict[str, Any]] = []
        self._event_listeners: list[Callable[[dict[str, Any]], None]] = []
        connection.listen(self._on_notification)

    def _on_notification(self, method: str, params: Any) -> None:
        if method == EVENT_METHOD and isinstance(params, dict):
            self.events.append(params)
            for listener in self._event_listeners:
                listener(params)

    def on_event(self, listener: Callable[[dict[str, Any]], None]) -> None:
        self._event_listeners.append(listener)

    def serve_completions(self, handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> None:
        self.rpc.on_request(COMPLETE_METHOD, handler)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.rpc.request(method, params or {})

    def session_events(self, session_id: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("sessionId") == session_id]


@asynccontextmanager
async def start_sidecar(args: list[str] | None = None, *, env: dict[str, str] | None = None,
                        stderr: int | None = None) -> AsyncIterator[Sidecar]:
    """Run ``council serve ARGS``, do the initialize handshake, and shut it down cleanly on exit."""
    process = await anyio.open_process([sys.executable, "-m", "council", "serve", *(args or [])],
                                       env={**os.environ, **(env or {})}, stderr=stderr)
    assert process.stdout is not None and process.stdin is not None
    connection = Connection(process.stdout, process.stdin)
    async with anyio.create_task_group() as tg:
        tg.start_soon(connection.run, tg)
        sidecar = Sidecar(process, connection)
        try:
            await sidecar.call("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
            await connection.notify("initialized", {})
            yield sidecar
        finally:
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(5):
                    if not connection.closed.is_set() and process.returncode is None:
                        try:
                            await sidecar.call("shutdown")
                            await connection.notify("exit")
                        except Exception:
                            pass
                        await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            tg.cancel_scope.cancel()
