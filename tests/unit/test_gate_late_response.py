"""The gate drops a client's answer to a sidecar request the sidecar stopped waiting for (seen in the e2e: a stop
cancelled a council/complete future, the client's late answer reached pygls, which raised InvalidStateError)."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import Any

from council.transport.framing import Message
from council.transport.gate import Gate


class FakeProtocol:
    def __init__(self) -> None:
        self._request_futures: dict[Any, Future] = {}
        self.handled: list[dict[str, Any]] = []
        self.on_response = None

    def set_writer(self, writer: Any, include_headers: bool = False) -> None:
        self.writer = writer

    def structure(self, message: dict[str, Any]) -> dict[str, Any]:
        return message

    def handle_message(self, message: dict[str, Any]) -> None:
        future = self._request_futures.pop(message["id"])
        future.set_result(message.get("result"))  # raises InvalidStateError on a cancelled future, as pygls does
        self.handled.append(message)


class FakeWriter:
    on_broken = None

    def write(self, data: bytes) -> None:
        pass


def response(msg_id: str) -> Message:
    return Message(value={"jsonrpc": "2.0", "id": msg_id, "result": {"text": "late"}}, declared=0, used=0)


async def test_a_late_answer_to_a_cancelled_request_is_dropped_and_a_live_one_is_delivered(caplog):
    protocol = FakeProtocol()
    gate = Gate(protocol, FakeWriter())  # type: ignore[arg-type]
    cancelled, live = Future(), Future()
    cancelled.cancel()
    protocol._request_futures.update({"c-1": cancelled, "c-2": live})
    gate.receive(response("c-1"))
    gate.receive(response("c-2"))
    assert [m["id"] for m in protocol.handled] == ["c-2"]
    assert live.result() == {"text": "late"}
    assert "c-1" not in protocol._request_futures
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    await asyncio.sleep(0)
