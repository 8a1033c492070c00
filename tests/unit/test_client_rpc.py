"""The headless client reads the sidecar with the sidecar's own framing, strictly: every byte vscode-jsonrpc could
not read ends the connection with a FramingError (the lenient reader would skip or resynchronise past it), and
well-formed frames split anywhere reach their listeners."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from council.client.rpc import Connection, FramingError, RpcError


def frame(value: object, header: bytes = b"Content-Length: %d\r\n\r\n") -> bytes:
    body = value if isinstance(value, bytes) else json.dumps(value).encode()
    return header % len(body) + body


EVENT = {"jsonrpc": "2.0", "method": "council/event", "params": {"n": 1}}


class Bytes:
    """A byte stream that hands out ``data`` in ``chunk``-sized pieces, then ends."""

    def __init__(self, data: bytes, chunk: int) -> None:
        self.parts = [data[i:i + chunk] for i in range(0, len(data), chunk)]

    async def receive(self) -> bytes:
        if not self.parts:
            raise anyio.EndOfStream
        return self.parts.pop(0)


class Sink:
    def __init__(self) -> None:
        self.sent = b""

    async def send(self, data: bytes) -> None:
        self.sent += data


async def read_all(data: bytes, chunk: int) -> tuple[Connection, list[Any]]:
    connection, seen = Connection(Bytes(data, chunk), Sink()), []  # type: ignore[arg-type]
    connection.listen(lambda method, params: seen.append(params))
    async with anyio.create_task_group() as tg:
        await connection.run(tg)
    return connection, seen


@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
async def test_well_formed_frames_split_anywhere_reach_the_listeners(chunk: int) -> None:
    data = frame(EVENT) + frame(EVENT, b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n")
    connection, seen = await read_all(data, chunk)
    assert seen == [{"n": 1}, {"n": 1}] and connection.failure is None


@pytest.mark.parametrize("stray", [
    b"\r\n",  # a blank line between frames (a stray print())
    b"\n",
    b"stray print\n",
    frame(EVENT, b"Content-Length: %d\n\n"),  # LF-only line ends
    frame(EVENT, b"X-Debug: 1\r\nContent-Length: %d\r\n\r\n"),  # a header vscode-jsonrpc does not know
    frame(b'{"jsonrpc": "2.0", "method": "m", "params": {"x": NaN}}'),  # JSON.parse refuses NaN
    frame({"jsonrpc": "1.0", "method": "m"}),
    frame(EVENT)[:-1] + b" ",  # a length that does not match the JSON
    frame(EVENT)[:-3],  # the stream ends inside a frame
])
async def test_any_byte_outside_a_well_formed_frame_is_a_framing_error(stray: bytes) -> None:
    connection, seen = await read_all(frame(EVENT) + stray, 5)
    assert isinstance(connection.failure, FramingError), connection.failure
    assert seen == [{"n": 1}] and connection.closed.is_set()


async def test_a_pending_call_fails_when_the_stream_breaks_and_a_request_is_answered() -> None:
    sink = Sink()
    request = {"jsonrpc": "2.0", "id": "c-1", "method": "council/complete", "params": {"x": 1}}
    connection = Connection(Bytes(frame(request) + b"junk", 1 << 16), sink)  # type: ignore[arg-type]
    connection.on_request("council/complete", lambda params: _echo(params))
    failure: list[BaseException] = []

    async def call() -> None:
        try:
            await connection.request("council/turn", {})
        except RpcError as exc:
            failure.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        await anyio.sleep(0)
        await connection.run(tg)
    assert isinstance(connection.failure, FramingError) and failure and failure[0].code == -32099
    sent = sink.sent.split(b"\r\n\r\n")
    assert json.loads(sent[-1]) == {"jsonrpc": "2.0", "id": "c-1", "result": {"x": 1}}


async def test_a_call_after_the_stream_ended_fails_at_once_not_waits_forever() -> None:
    connection = Connection(Bytes(frame(EVENT), 1 << 16), Sink())  # type: ignore[arg-type]
    async with anyio.create_task_group() as tg:
        await connection.run(tg)
    assert connection.closed.is_set()
    with anyio.fail_after(2), pytest.raises(RpcError) as caught:
        await connection.request("council/turn", {})
    assert caught.value.code == -32099


async def _echo(params: Any) -> Any:
    return params
