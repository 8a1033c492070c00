"""A strict JSON-RPC 2.0 connection with LSP ``Content-Length`` framing over byte streams.

Unlike pygls's lenient reader, any byte that is not part of a well-formed frame is a :class:`FramingError`:
this is how the tests prove stdout carries the protocol only. Requests from the peer are answered by registered
handlers; notifications go to listeners; ``$/cancelRequest`` is sent when a pending call is cancelled.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, TaskGroup

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
        self._buffer = b""
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
            while True:
                message = await self._read()
                if message is None:
                    break
                self._dispatch(message)
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

    async def _read(self) -> dict[str, Any] | None:
        headers: dict[str, str] = {}
        while b"\r\n\r\n" not in self._buffer:
            if not await self._fill():
                if self._buffer:
                    raise FramingError(f"stray bytes at end of stream: {self._buffer[:80]!r}")
                return None
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        for line in head.split(b"\r\n"):
            name, sep, value = line.partition(b":")
            if not sep or name.strip().lower() not in (b"content-length", b"content-type"):
                raise FramingError(f"not a JSON-RPC header: {line[:80]!r}")
            headers[name.strip().lower().decode()] = value.strip().decode()
        if "content-length" not in headers:
            raise FramingError("header without Content-Length")
        length = int(headers["content-length"])
        while len(self._buffer) < length:
            if not await self._fill():
                raise FramingError("stream ended inside a message body")
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        try:
            message = json.loads(body)
        except json.JSONDecodeError as exc:
            raise FramingError(f"body is not JSON: {body[:80]!r}") from exc
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            raise FramingError(f"not a JSON-RPC 2.0 message: {body[:80]!r}")
        return message

    async def _fill(self) -> bool:
        try:
            chunk = await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        self._buffer += chunk
        return True

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            assert self._tg is not None
            self._tg.start_soon(self._serve, message)
        elif "method" in message:
            for listener in self._listeners:
                listener(message["method"], message.get("params"))
        elif "id" in message:
            entry = self._pending.pop(message["id"], None)
            if entry is None:
                return
            event, box = entry
            if "error" in message:
                err = message["error"]
                box.append(RpcError(err.get("code", 0), err.get("message", ""), err.get("data")))
            else:
                box.append(message.get("result"))
            event.set()

    async def _serve(self, message: dict[str, Any]) -> None:
        handler = self._handlers.get(message["method"])
        if handler is None:
            await self._write({"jsonrpc": "2.0", "id": message["id"],
                               "error": {"code": -32601, "message": f"method not found: {message['method']}"}})
            return
        try:
            result = await handler(message.get("params"))
            await self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})
        except RpcError as exc:
            await self._write({"jsonrpc": "2.0", "id": message["id"],
                               "error": {"code": exc.code, "message": exc.message, "data": exc.data}})
        except Exception as exc:
            await self._write({"jsonrpc": "2.0", "id": message["id"],
                               "error": {"code": -32603, "message": f"{type(exc).__name__}: {exc}"}})

    async def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        async with self._send_lock:
            await self._send.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def notify(self, method: str, params: Any = None) -> None:
        await self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any = None) -> Any:
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
