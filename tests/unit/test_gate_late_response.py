"""A client's late answer to a ``council/complete`` the sidecar stopped waiting for settles quietly, and a live one
is delivered (seen in the e2e: a stop cancelled a council/complete future, the client's late answer reached pygls,
which raised InvalidStateError). The real server, bridge and gate, pygls's real protocol; only the client is bytes."""

from __future__ import annotations

import io
from typing import Any

import anyio

from council.protocol.completion import CompleteParams, CompleteResult
from council.server import ClientBridge, CouncilServer
from council.transport.framing import FrameReader, FrameWriter, Message
from council.transport.gate import Gate


def params(stream_id: str) -> CompleteParams:
    return CompleteParams(session_id="s", stream_id=stream_id, purpose="moderator", messages=[])


def sent(out: io.BytesIO) -> list[Any]:
    return [event.value for event in FrameReader(strict=True).feed(out.getvalue())]


async def no_deltas(_text: str) -> None:
    pass


async def test_a_late_answer_to_a_cancelled_request_is_quiet_and_a_live_one_is_delivered(caplog) -> None:
    server, out = CouncilServer(), io.BytesIO()
    gate = Gate(server.protocol, FrameWriter(out))
    bridge = ClientBridge(server)
    with anyio.move_on_after(0.05):  # a stop cancels the model call while the client still works on it
        await bridge.complete(params("cancelled"), no_deltas)
    live: list[CompleteResult] = []

    async def ask() -> None:
        live.append(await bridge.complete(params("live"), no_deltas))

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        await anyio.sleep(0.05)
        requests = [m["id"] for m in sent(out) if m.get("method") == "council/complete"]
        assert len(requests) == 2
        assert {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": requests[0]}} in sent(out)
        for msg_id, text in zip(requests, ("late", "live"), strict=True):
            gate.receive(Message({"jsonrpc": "2.0", "id": msg_id, "result": {"text": text}}, 0, 0))
    assert [result.text for result in live] == ["live"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text
