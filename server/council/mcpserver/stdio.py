"""``council mcp``'s stdio transport: newline-delimited JSON-RPC on stdin/stdout, with the
:class:`~council.mcpserver.guard.Guard` in front of the SDK's session (in place of ``mcp.server.stdio.stdio_server``,
whose reader drops what it cannot parse without an answer). Stdin is read as ``council serve`` reads it, with
bounded memory per line. One :class:`LineWriter` writes every message whole; it gives SDK-built errors the contract's
``data``, turns a result that cannot be serialised into an internal error for its id (the request is still
answered), and a broken stdout stops the server. A request the client cancels gets no response (the MCP spec's
cancellation; the SDK answers it, the writer drops that). When the server cancels a request of its own
(``notifications/cancelled``: its deadline passed, or the tool call it served ended), the SDK still waits for that
request's answer: the error that ends the wait goes into the SDK's input, so no waiter is ever cancelled mid-reply.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from council.mcpserver.guard import ID_SCAN_BYTES, MAX_LINE_BYTES, Guard, Verdict
from council.protocol.constants import INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, SERVER_NOT_INITIALIZED
from council.transport.framing import encode_json
from council.transport.stdio import reading

log = logging.getLogger("council.mcp")

_CLIENT_FAULTS = {PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, types.INVALID_PARAMS, SERVER_NOT_INITIALIZED,
                  types.UNSUPPORTED_PROTOCOL_VERSION, types.MISSING_REQUIRED_CLIENT_CAPABILITY, types.HEADER_MISMATCH}
# (the last three: a 2026-07-28 envelope the SDK refuses, an `initialize` after one …)


class Overlong:
    """A line longer than the limit: its first bytes."""

    def __init__(self, head: bytes) -> None:
        self.head = head


class LineSplitter:
    """Bytes in, whole lines (without ``\\n``) or :class:`Overlong` out; never holds more than the limit."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._skipping: bytearray | None = None  # the head of an overlong line, until its end

    def feed(self, data: bytes) -> list[bytes | Overlong]:
        *lines, rest = data.split(b"\n")
        out: list[bytes | Overlong] = []
        for line in lines:
            self._take(line)
            out.append(self._finish())
        self._take(rest)
        return out

    def close(self) -> list[bytes | Overlong]:
        """The end of input: a last line without ``\\n`` counts."""
        return [self._finish()] if self._buf or self._skipping is not None else []

    def _take(self, piece: bytes) -> None:
        if self._skipping is not None:
            self._skipping += piece[:max(0, ID_SCAN_BYTES - len(self._skipping))]
            return
        self._buf += piece
        if len(self._buf) > MAX_LINE_BYTES:
            self._skipping = bytearray(self._buf[:ID_SCAN_BYTES])
            self._buf = bytearray()

    def _finish(self) -> bytes | Overlong:
        if self._skipping is not None:
            overlong, self._skipping = Overlong(bytes(self._skipping)), None
            return overlong
        line, self._buf = bytes(self._buf), bytearray()
        return line


class LineWriter:
    """The protocol stdout: one whole line per message, written synchronously (so lines never interleave).
    ``withdrawn`` receives the error that ends the SDK's wait for a request the server cancels."""

    def __init__(self, stream: BinaryIO, guard: Guard,
                 withdrawn: MemoryObjectSendStream[types.JSONRPCMessage] | None = None) -> None:
        self.stream = stream
        self.guard = guard
        self.withdrawn = withdrawn
        self.broken = anyio.Event()

    def send(self, message: dict[str, Any]) -> None:
        if message.get("method") == "notifications/cancelled":  # the server withdrew one of its requests
            self._withdraw(message.get("params") or {})
        if self.broken.is_set():
            return
        if "method" in message and "id" in message:
            self.guard.asked(message["id"])
        elif cancelled(message):  # MCP: a request the client cancelled gets no response (the SDK sends one)
            self.guard.answered(message.get("id"))
            log.info("request %r cancelled by the client: not answered", message.get("id"))
            return
        elif "error" in message or "result" in message:
            if isinstance(message.get("error"), dict):
                message["error"] = contract_error(message["error"])
            self.guard.answered(message.get("id"))
        data = self._encoded(message)
        if data is None:
            return
        try:
            self.stream.write(data + b"\n")
            self.stream.flush()
        except (OSError, ValueError) as exc:
            log.error("council mcp: writing to the client failed (%s); exiting", exc)
            self.broken.set()

    @staticmethod
    def _encoded(message: dict[str, Any]) -> bytes | None:
        """``message`` as JSON, encoded once (a lone surrogate is kept, as a \\uXXXX escape); one that cannot be
        (NaN, a value JSON has not) becomes an internal error for its id when it answers a request, else nothing."""
        try:
            return encode_json(message)
        except (TypeError, ValueError) as exc:
            log.exception("council mcp: a message could not be serialised")
            if "id" not in message or "method" in message:
                return None
            text = f"the answer could not be serialised: {type(exc).__name__}"
            return encode_json({"jsonrpc": "2.0", "id": message["id"],
                                "error": contract_error({"code": types.INTERNAL_ERROR, "message": text})})

    def _withdraw(self, params: dict[str, Any]) -> None:
        ending = self.guard.withdrawn(params.get("requestId"), str(params.get("reason") or "cancelled"))
        if ending is None or self.withdrawn is None:
            return
        try:
            self.withdrawn.send_nowait(ending)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):  # input closed: the SDK ends every wait
            log.debug("the input is closed; request %r ends with it", params.get("requestId"))

    def send_session_message(self, session_message: SessionMessage) -> None:
        """A message of the SDK's, dumped to JSON data here and encoded once by :meth:`send`."""
        root = session_message.message
        try:
            message = session_message.message.model_dump(by_alias=True, mode="json", exclude_none=True)
        except Exception as exc:  # never lose the answer: the request gets an internal error instead
            log.exception("council mcp: a message could not be serialised")
            if not isinstance(root, types.JSONRPCResponse | types.JSONRPCError):
                return
            text = f"the answer could not be serialised: {type(exc).__name__}"
            message = {"jsonrpc": "2.0", "id": root.id, "error": {"code": types.INTERNAL_ERROR, "message": text}}
        self.send(message)


def cancelled(message: dict[str, Any]) -> bool:
    """Whether ``message`` is the SDK's answer to a request the client cancelled (code 0, "Request cancelled")."""
    error = message.get("error")
    return isinstance(error, dict) and error.get("code") == 0 and error.get("message") == "Request cancelled"


def contract_error(error: dict[str, Any]) -> dict[str, Any]:
    """``error`` with ``data`` in the contract's shape (kept when it already is; else wrapping what was there, in
    ``details.data``, an object's fields also kept at the top of ``data``, where MCP puts them: an unsupported
    version's ``supported`` and ``requested``, a missing capability's ``requiredCapabilities``)."""
    data = error.get("data")
    if isinstance(data, dict) and {"code", "message", "details"} <= set(data) and \
            data["code"] in ("validation", "permission", "internal"):
        return error
    code, message = error.get("code"), str(error.get("message", ""))
    kind = "validation" if code in _CLIENT_FAULTS else "internal"
    details = {} if data in (None, "") else {"data": data}
    spec = data if isinstance(data, dict) else {}
    return {**error, "data": {**spec, "code": kind, "message": message, "details": details}}


@asynccontextmanager
async def guarded_stdio(stdin_fd: int, stdout: BinaryIO) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]]:
    """``(read, write)`` streams for ``Server.run``, like the SDK's ``stdio_server``, with the guard in front."""
    guard = Guard()
    ends_send, ends_receive = anyio.create_memory_object_stream[types.JSONRPCMessage](math.inf)
    writer = LineWriter(stdout, guard, ends_send)
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def write_out() -> None:
        async with write_receive:
            async for session_message in write_receive:
                writer.send_session_message(session_message)

    async def read_in() -> None:
        async with read_send, ends_send:  # closing both ends the SDK's input
            async for verdict in _verdicts(stdin_fd, guard):
                for answer in verdict.answer:
                    writer.send(answer)
                for message in verdict.forward:
                    await read_send.send(SessionMessage(message))
        log.info("input closed (%d lines, %d refused); exiting", guard.lines, guard.refused)

    async def end_withdrawn(into: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        """The errors that end the waits for withdrawn requests, into the SDK's input beside the client's lines
        (a queue of their own: the writer never waits on the reader)."""
        async with into, ends_receive:
            async for message in ends_receive:
                await into.send(SessionMessage(message))

    async def stop_when_broken(scope: anyio.CancelScope) -> None:
        await writer.broken.wait()
        scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(write_out)
        tg.start_soon(end_withdrawn, read_send.clone())
        tg.start_soon(read_in)
        tg.start_soon(stop_when_broken, tg.cancel_scope)
        try:
            yield read_receive, write_send
        finally:
            tg.cancel_scope.cancel()


async def _verdicts(stdin_fd: int, guard: Guard) -> AsyncIterator[Verdict]:
    chunks, slots = reading(stdin_fd, "council mcp", "council-mcp-stdin")
    splitter = LineSplitter()
    while True:
        chunk = await chunks.get()
        slots.release()
        lines = splitter.feed(chunk) if chunk else splitter.close()
        for line in lines:
            yield guard.overlong(line.head) if isinstance(line, Overlong) else guard.receive(line)
            await anyio.sleep(0)  # let requests run between lines, even under a flood
        if not chunk:
            return


