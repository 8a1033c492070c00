"""``council serve`` answers ``initialize`` before it imports anything heavy (issue 24): the transport alone loads
first, and the gate loads pygls and the service only once its answer is written."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from council.transport.framing import Message
from council.transport.gate import Gate, Served

HEAVY = ("pydantic", "pydantic_core", "lsprotocol", "pygls", "cattrs", "httpx", "tenacity", "anyio", "mcp",
         "sentence_transformers", "torch", "council.service", "council.session.state.entities",
         "council.protocol.methods")


def test_the_transport_and_the_serve_command_load_nothing_heavy() -> None:
    """What runs before ``initialize`` is answered: the command line, ``council serve``'s module, the gate and the
    stdio loop; and the first message's checks (a plainly valid ``initialize``)."""
    code = ("import sys\n"
            "from council.cli.main import parser\n"
            "parser('serve')\n"
            "import council.cli.serve, council.transport.gate, council.transport.stdio, council.logs\n"
            "from council.transport import lsp\n"
            "assert lsp.plainly_valid({'processId': 1, 'capabilities': {'general': {}}, 'clientInfo': {'name': 'x'}})\n"
            f"print([m for m in {HEAVY!r} if m in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout.replace("'", '"')) == []


class Writer:
    """The FrameWriter's two ways in: the gate's ``send`` and pygls's ``write`` (through the gate's ``outgoing``)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.on_broken = None
        self.outgoing = lambda message: message

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def write(self, body: bytes) -> None:
        message = self.outgoing(json.loads(body))
        if message is not None:
            self.sent.append(message)

    def close(self) -> None:
        self.closed = True


class Protocol:
    """What the gate uses of pygls's protocol."""

    def __init__(self) -> None:
        self.fm = type("FM", (), {"features": {"council/personas": None}})()
        self.handled: list[Any] = []

    def set_writer(self, writer: Any, include_headers: bool = False) -> None:
        self.writer = writer

    def structure_message(self, message: dict[str, Any]) -> dict[str, Any]:
        return message

    def handle_message(self, message: Any) -> None:  # answers every request, as pygls does
        self.handled.append(message)
        if "id" in message:
            self.writer.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": "pygls"}).encode())


def initialize(msg_id: Any = 1, params: Any = None) -> Message:
    return Message({"jsonrpc": "2.0", "id": msg_id, "method": "initialize",
                    "params": params if params is not None else {"capabilities": {}}}, 0, 0)


async def test_initialize_is_answered_before_the_server_loads_then_pygls_initializes_quietly() -> None:
    writer, protocol = Writer(), Protocol()
    seen_at_load: list[int] = []

    def load() -> Served:
        seen_at_load.append(len(writer.sent))
        return Served(protocol, frozenset(), None)  # type: ignore[arg-type]

    gate = Gate(None, writer, load=load)  # type: ignore[arg-type]
    gate.receive(initialize(7, {"processId": 3, "capabilities": {}}))
    assert seen_at_load == [1]  # the answer was written before load ran
    assert writer.sent[0] == {"jsonrpc": "2.0", "id": 7, "result": {
        "capabilities": {}, "serverInfo": {"name": "council", "version": writer.sent[0]["result"]["serverInfo"][
            "version"]}}}
    assert protocol.handled == [{"jsonrpc": "2.0", "id": 7, "method": "initialize",  # pygls initialized quietly:
                                 "params": {"processId": 3, "capabilities": {}}}]  # its own answer is not sent
    gate.receive(Message({"jsonrpc": "2.0", "id": 8, "method": "council/personas"}, 0, 0))
    assert protocol.handled[-1]["id"] == 8  # served by what load gave
    assert [m.get("result") for m in writer.sent[1:]] == ["pygls"]  # one answer each: 7 by the gate, 8 by pygls


async def test_requests_before_initialize_are_refused_without_loading_anything() -> None:
    writer = Writer()

    def load() -> Served:
        raise AssertionError("nothing loads before initialize")

    gate = Gate(None, writer, load=load)  # type: ignore[arg-type]
    gate.receive(Message({"jsonrpc": "2.0", "id": 1, "method": "council/personas"}, 0, 0))
    gate.receive(initialize(2, {"processId": "me", "capabilities": {}}))  # refused: nothing loads either
    assert [m["error"]["code"] for m in writer.sent] == [-32002, -32602]
    assert writer.sent[1]["error"]["data"]["details"]["fields"] == {"processId": "Input should be a valid integer"}


async def test_a_server_that_cannot_load_says_why_to_every_request_and_exits_with_1(
        caplog: pytest.LogCaptureFixture) -> None:
    writer = Writer()

    def load() -> Served:
        raise RuntimeError("broken.toml: TOML syntax error")

    gate = Gate(None, writer, load=load)  # type: ignore[arg-type]
    gate.receive(initialize())
    assert "could not start after initialize" in caplog.text
    gate.receive(Message({"jsonrpc": "2.0", "id": 2, "method": "council/personas"}, 0, 0))
    gate.receive(Message({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}, 0, 0))
    gate.receive(Message({"jsonrpc": "2.0", "method": "exit"}, 0, 0))
    refused, shut = writer.sent[1], writer.sent[2]
    assert refused["id"] == 2 and refused["error"]["code"] == -32603
    assert refused["error"]["data"]["details"] == {"reason": "not started",
                                                   "cause": "RuntimeError: broken.toml: TOML syntax error"}
    assert shut == {"jsonrpc": "2.0", "id": 3, "result": None}
    assert gate.stopped and await gate.close() == 1


@pytest.mark.parametrize("params", [
    {"capabilities": {}},
    {"processId": None, "clientInfo": {"name": "Visual Studio Code", "version": "1.139.1"}, "locale": "en",
     "rootPath": None, "rootUri": None, "trace": "off", "workspaceFolders": [{"uri": "file:///w", "name": "w"}],
     "workDoneToken": "tok", "capabilities": {"workspace": {"applyEdit": True}, "general": {}}},
])
def test_plainly_valid_params_are_what_the_model_accepts(params: dict[str, Any]) -> None:
    from council.transport import lsp
    from council.transport.lsp_params import InitializeParams

    assert lsp.plainly_valid(params)
    InitializeParams.model_validate(params)


@pytest.mark.parametrize("params", [
    None, [], {}, {"capabilities": []}, {"capabilities": {"general": 5}}, {"capabilities": {}, "processId": True},
    {"capabilities": {}, "processId": "1"}, {"capabilities": {}, "clientInfo": {"name": 5}},
    {"capabilities": {}, "clientInfo": {}}, {"capabilities": {}, "trace": "loud"},
    {"capabilities": {}, "workspaceFolders": 7}, {"capabilities": {}, "workspaceFolders": [{"uri": "u"}]},
    {"capabilities": {}, "rootUri": 3}, {"capabilities": {}, "process_id": "x"},
    {"capabilities": {"text_document": 5}},
])
def test_anything_else_goes_to_the_model(params: Any) -> None:
    from council.transport import lsp

    assert not lsp.plainly_valid(params)
