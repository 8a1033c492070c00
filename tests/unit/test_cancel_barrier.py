"""A ``$/cancelRequest`` for a turn is a barrier: once the gate has processed it, no ``council/complete`` leaves for
that turn (issue 30: "a model call can still start after the cancel was processed", 1 run in 4 over
vscode-jsonrpc under load). The moment is made exact here: the cancel is read after the turn started its seats' tasks
and before they ran — pygls marks the turn's task cancelled at once, but the seats learn it only at their next
await, and sending the request needs none. The real server wiring (``build_server``), bridge, gate and pygls; the
turn's work is a stand-in that starts three seats at once, as a debate cycle does.
"""

from __future__ import annotations

import io
from typing import Any

import anyio

from council.protocol.completion import CompleteParams
from council.protocol.methods import TurnResult
from council.server import build_server
from council.transport.framing import FrameReader, FrameWriter, Message
from council.transport.gate import Gate


def sent(out: io.BytesIO) -> list[Any]:
    return [event.value for event in FrameReader(strict=True).feed(out.getvalue())]


async def no_deltas(_text: str) -> None:
    pass


class ThreeSeats:
    """The service: ``council/turn`` starts three seats that ask the client's model; ``on_started`` runs right after
    they were started (before any of them ran)."""

    def __init__(self, bridge: Any) -> None:
        self.bridge = bridge
        self.on_started = lambda: None

    async def turn(self, _params: Any) -> TurnResult:
        async with anyio.create_task_group() as tg:
            for seat in ("Architect", "Developer", "Advocate"):
                tg.start_soon(self.bridge.complete, CompleteParams(session_id="s", stream_id=seat, purpose=seat,
                                                                   messages=[]), no_deltas)
            self.on_started()
        raise AssertionError("the seats were answered: nobody answers them here")

    async def aclose(self) -> None:
        pass


async def test_no_model_call_starts_once_the_turns_cancel_was_processed() -> None:
    server = build_server(lambda _sink, bridge: ThreeSeats(bridge))
    out = io.BytesIO()
    gate = Gate(server.protocol, FrameWriter(out))
    seats: ThreeSeats = server.service  # type: ignore[assignment]
    seats.on_started = lambda: gate.receive(Message(
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "t"}}, 0, 0))
    gate.receive(Message({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {"capabilities": {}}}, 0, 0))
    gate.receive(Message({"jsonrpc": "2.0", "id": "t", "method": "council/turn", "params": {"text": "x"}}, 0, 0))
    with anyio.fail_after(10):
        while not [m for m in sent(out) if m.get("id") == "t"]:
            await anyio.sleep(0.01)
    [answer] = [m for m in sent(out) if m.get("id") == "t"]
    assert answer["error"]["code"] == -32800, answer
    assert [m for m in sent(out) if m.get("method") == "council/complete"] == []
