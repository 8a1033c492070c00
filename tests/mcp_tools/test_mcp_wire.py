"""``council mcp``'s stdio, line by line: what the SDK's reader used to drop unanswered is answered (the guard,
``council.mcpserver.guard``), a cancellation racing the answer no longer ends the server, a cancelled call gets no
response (MCP), and the seeded fuzzer over every frame shape finds every request answered exactly once (a cancelled
one at most once) on a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from council.mcpserver.guard import MAX_DEPTH, Guard, nesting_depth, readable_id

from .fuzz import run

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawServer:
    """``council mcp`` on raw pipes: lines in, decoded answers out (keyed by id)."""

    def __init__(self, tmp_path: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "council", "mcp", "--provider", "scripted", "--no-embeddings",
             "--workspace", str(tmp_path), *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=(tmp_path / "server.log").open("wb"), cwd=tmp_path)
        self.answers: list[dict[str, Any]] = []
        self.lines: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self.answers.append(json.loads(line))

    def send(self, *lines: bytes | dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n")
        self.proc.stdin.flush()

    def answer(self, msg_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [a for a in self.answers if a.get("id") == msg_id and "method" not in a]
            if found:
                return found[0]
            time.sleep(0.02)
        raise AssertionError(f"no answer for {msg_id!r}; got {self.answers[-5:]}")

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=20)


def ping(msg_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "ping"}


def test_what_the_sdk_dropped_is_answered_and_the_server_carries_on(raw):
    deep = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"council_consult","arguments":' \
           b'{"user_problem":"q","context":' + b"[" * 300 + b"]" * 300 + b"}}}"
    raw.send(INIT, INITIALIZED, deep,
             b'{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}',  # params not an object
             b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":5}}',  # wrong param type
             b'{"jsonrpc":"2.0","id":10,"method":"resources/nope"}',
             b'\xff\xfe{"jsonrpc":"2.0","id":11}',  # not UTF-8
             b'[{"jsonrpc":"2.0","id":12,"method":"ping"},{"jsonrpc":"2.0","id":13,"method":"ping"}]',
             b'{"jsonrpc":"2.0","id":"\\ud800x","method":"ping"}',  # a lone surrogate in the id
             b'{"jsonrpc":"2.0","id":' + b"9" * 40 + b',"method":"ping"}',  # an id past 64 bits
             b'{"jsonrpc":"2.0","id":true,"method":"ping"}', ping(14))
    too_deep = raw.answer(7)["error"]
    assert too_deep["code"] == -32700 and too_deep["data"]["details"] == {"reason": "too_deep", "limit": MAX_DEPTH}
    assert raw.answer(8)["error"]["data"]["details"]["reason"] == "bad_params"
    assert raw.answer(9)["error"]["code"] == -32602 and "params.cursor" in raw.answer(9)["error"]["data"]["details"][
        "fields"]
    assert raw.answer(10)["error"]["code"] == -32601
    assert raw.answer(11)["error"]["code"] == -32700  # its id was still readable
    assert raw.answer(12)["error"]["code"] == raw.answer(13)["error"]["code"] == -32600  # no batches in MCP
    assert raw.answer("\ud800x") == {"jsonrpc": "2.0", "id": "\ud800x", "result": {}}  # echoed exactly
    assert raw.answer(int("9" * 40))["result"] == {}
    assert raw.answer(None)["error"]["code"] == -32600  # id true: not an id
    assert raw.answer(14)["result"] == {}
    for a in raw.answers:
        if "error" in a:
            assert set(a["error"]["data"]) == {"code", "message", "details"} and a["error"]["data"]["code"] in (
                "validation", "internal")
    assert raw.close() == 0


def test_requests_before_initialized_are_refused_not_dropped(raw):
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, ping(2), INIT, INITIALIZED,
             {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    assert raw.answer(1)["error"]["code"] == -32002 and raw.answer(2)["result"] == {}
    assert raw.answer(3)["result"]["tools"][0]["name"] == "council_consult"


def test_a_cancellation_racing_the_answer_does_not_end_the_server(raw):
    """The SDK let the request's own cancellation escape when notifications/cancelled arrived while the answer was
    being written, which ended the server's task group: every later request went unanswered and it exited."""
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "council_consult",
                                                                          "arguments": {"confirm": "x"}}}
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
    raw.send(INIT, INITIALIZED, call, cancel, ping(6))
    assert raw.answer(6)["result"] == {}
    time.sleep(0.5)
    assert len([a for a in raw.answers if a.get("id") == 5]) <= 1  # its result, if it was done before the cancel
    assert not [a for a in raw.answers if "Request cancelled" in json.dumps(a)]  # MCP: a cancelled request gets none
    assert raw.proc.poll() is None


def test_a_cancelled_call_gets_no_response(tmp_path):
    """Before: the SDK answered it with error code 0 "Request cancelled"; MCP's cancellation says receivers should
    not send a response for a cancelled request."""
    raw = RawServer(tmp_path, "--elicitation-timeout", "30")
    try:
        init = {**INIT, "params": {**INIT["params"], "capabilities": {"elicitation": {}}}}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "council_consult", "arguments": {
            "user_problem": "Should we split our monolith into services this quarter?", "depth": "brief"}}}
        raw.send(init, INITIALIZED, call)  # the consult waits on its clarifying question: it is still running
        deadline = time.monotonic() + 20
        while not any(a.get("method") == "elicitation/create" for a in raw.answers) and time.monotonic() < deadline:
            time.sleep(0.02)
        [asked] = [a for a in raw.answers if a.get("method") == "elicitation/create"]
        raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, ping(2))
        assert raw.answer(2)["result"] == {}
        time.sleep(1.0)
        assert [a for a in raw.answers if a.get("id") == 1 and "method" not in a] == []
        [withdrawn] = [a for a in raw.answers if a.get("method") == "notifications/cancelled"]
        assert withdrawn["params"]["requestId"] == asked["id"]  # its question is withdrawn too
        raw.send({**call, "id": 3, "params": {**call["params"], "arguments": {"user_problem": "q", "depth": "epic"}}})
        assert raw.answer(3)["result"]["isError"] is True  # the id is free again, and the server serves
        assert raw.close() == 0
    finally:
        if raw.proc.poll() is None:
            raw.proc.kill()
            raw.proc.wait()


def test_an_id_with_a_lone_surrogate_is_echoed_exactly(raw):
    """The guard put U+FFFD in the id, so the client's answer never matched its request; the id is now kept and
    written with an ASCII escape (as the sidecar's encode_json), whatever the request or refusal."""
    raw.send(INIT, INITIALIZED, b'{"jsonrpc":"2.0","id":"a\\ud800","method":"ping"}',
             b'{"jsonrpc":"2.0","id":"b\\udfff","method":"tools/list","params":{"cursor":5}}',  # refused: bad params
             b'{"jsonrpc":"2.0","id":"c\\ud800","method":"tools/call","params":{"name":"council_consult",'
             b'"arguments":{"user_problem":"q\\ud800","depth":"epic"}}}',  # a tool error; its text is sanitised
             b'{"jsonrpc":"2.0","id":"d\\ud800",' + b'"method":', ping(4))  # not JSON: the id read from the bytes
    assert raw.answer("a\ud800") == {"jsonrpc": "2.0", "id": "a\ud800", "result": {}}
    assert raw.answer("b\udfff")["error"]["code"] == -32602
    assert raw.answer("c\ud800")["result"]["isError"] is True
    assert raw.answer("d\ud800")["error"]["code"] == -32700
    assert raw.answer(4)["result"] == {}
    for prefix in (b'{"jsonrpc":"2.0","id":"a\\ud800"', b'"id":"b\\udfff"', b'"id":"c\\ud800"', b'"id":"d\\ud800"'):
        assert any(prefix in line for line in raw.lines), prefix
    assert raw.close() == 0


def test_a_duplicate_elicitation_answer_resolves_only_its_own_request(tmp_path):
    """The client answers elicitation 0 three times (decline, decline, accept) and never answers 1: the duplicates
    are dropped, so question 2 waits for its own answer and expires into an assumption, never 'declined'."""
    raw = RawServer(tmp_path, "--elicitation-timeout", "2")
    try:
        init = {**INIT, "params": {**INIT["params"], "capabilities": {"elicitation": {}}}}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "council_consult", "arguments": {
            "user_problem": "Should we split our monolith into services this quarter?", "depth": "brief"}}}
        raw.send(init, INITIALIZED, call)
        deadline = time.monotonic() + 10
        while not any(a.get("method") == "elicitation/create" for a in raw.answers) and time.monotonic() < deadline:
            time.sleep(0.02)
        [first] = [a for a in raw.answers if a.get("method") == "elicitation/create"]
        decline = {"jsonrpc": "2.0", "id": first["id"], "result": {"action": "decline"}}
        raw.send(decline, decline, {"jsonrpc": "2.0", "id": first["id"], "result": {"action": "accept",
                                                                                     "content": {"answer": "late"}}})
        result = raw.answer(1, timeout=30)["result"]["structuredContent"]
        asked = [a for a in raw.answers if a.get("method") == "elicitation/create"]
        assert len(asked) == 2 and asked[1]["id"] != first["id"]
        assert [c["status"] for c in result["clarifications"]] == ["declined", "assumed"]
        [withdrawn] = [a for a in raw.answers if a.get("method") == "notifications/cancelled"]
        assert withdrawn["params"]["requestId"] == asked[1]["id"]
        raw.send(ping(2))
        assert raw.answer(2)["result"] == {}
        assert raw.close() == 0
    finally:
        if raw.proc.poll() is None:
            raw.proc.kill()
            raw.proc.wait()


def test_the_guard_alone():
    g = Guard()
    assert nesting_depth(b'{"a":"[[[[[[","b":[[1]]}') <= 3
    assert nesting_depth(b'"' + b"[" * 500 + b'"') == 0 and nesting_depth(b"[" * 500) == 500
    assert readable_id(b'{"params":{"id":5},"id":"x","method":') == "x"
    assert readable_id(b'{"jsonrpc":"2.0","id":1.5}') is None
    v = g.receive(b'{"jsonrpc":"2.0","id":1,"result":{}}')  # a response to nothing the server asked
    assert not v.forward and not v.answer
    g.asked(4)
    v = g.receive(b'{"jsonrpc":"2.0","id":4,"result":42}')  # not an object: the waiting request gets an error
    [error] = v.forward
    assert error.error.data["details"]["reason"] == "malformed_response"
    assert g.receive(b"   \r").answer == []


def test_the_fuzzer_finds_every_request_answered_once(tmp_path: Path):
    report = run(seed=18, frames=1500, workspace=tmp_path)
    assert report.requests == report.answered > 850 and report.null_answers > 300
    assert report.cancelled > 50  # each answered at most once (``run`` checks)
    assert report.exit_code == 0 and report.seconds < 60
