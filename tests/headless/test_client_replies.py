"""Every ``council/complete`` the sidecar sends its client ends — with the reply, an error, a cancel or a deadline —
and a malformed reply fails the model call it answers (issue 30). The real ``council serve`` with the client's model
(``--provider client``), driven with raw bytes: the replies are exactly the broken ones a client could send.
"""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import client_model_reply
from .raw import SERVE, RawSidecar, assert_error, frame, notification, request

CLIENT = [*SERVE[:4], "--provider", "client", "--no-embeddings"]
PROBLEM = "Should we split our monolith into services this quarter?"
TURN = {"text": PROBLEM, "options": {"clarify": False, "maxCycles": 1}, "client": {"completion": True}}
Reply = Callable[[dict[str, Any]], bytes]


def good(message: dict[str, Any]) -> bytes:
    return frame({"jsonrpc": "2.0", "id": message["id"], "result": {"text": client_model_reply(message["params"])[1]}})


def raw_body(body: str) -> Reply:
    """A reply whose body is ``body`` with ``{id}`` replaced by the request's id (JSON-quoted)."""
    return lambda message: frame(body.replace("{id}", json.dumps(message["id"])).encode())


# (name, reply, the JSON-RPC code of the refusal the sidecar sends with id null; None: the reply is refused by no one)
MALFORMED: list[tuple[str, Reply, int | None]] = [
    ("neither result nor error", raw_body('{"jsonrpc": "2.0", "id": {id}}'), -32600),
    ("not JSON, cut inside the result", raw_body('{"jsonrpc": "2.0", "id": {id}, "result": {"text": "unfinis'),
     -32700),
    ("not JSON after the id", raw_body('{"jsonrpc": "2.0", "id": {id}, garbage}'), -32700),
    ("not JSON, the id after the result", raw_body('{"result": {"text": 5}, "id": {id}, "jsonrpc": "2.0"'), -32700),
    ("not UTF-8", lambda m: frame(b'{"jsonrpc": "2.0", "id": ' + json.dumps(m["id"]).encode()
                                  + b', "result": {"text": "\xff\xfe"}}'), -32700),
    ("NaN in the result", raw_body('{"jsonrpc": "2.0", "id": {id}, "result": {"text": NaN}}'), -32700),
    ("JSON-RPC 1.0", raw_body('{"jsonrpc": "1.0", "id": {id}, "result": {"text": "{}"}}'), -32600),
    ("no jsonrpc member", raw_body('{"id": {id}, "result": {"text": "{}"}}'), -32600),
    ("declared length too long", lambda m: frame({"jsonrpc": "2.0", "id": m["id"], "result": {"text": "x"}},
                                                 length=len(json.dumps({"jsonrpc": "2.0", "id": m["id"],
                                                                        "result": {"text": "x"}})) + 3), -32600),
    ("result null", raw_body('{"jsonrpc": "2.0", "id": {id}, "result": null}'), None),
    ("result []", raw_body('{"jsonrpc": "2.0", "id": {id}, "result": []}'), None),
    ("result a string", raw_body('{"jsonrpc": "2.0", "id": {id}, "result": "the answer"}'), None),
    ("result without text", raw_body('{"jsonrpc": "2.0", "id": {id}, "result": {"model": "m"}}'), None),
    ("text not a string", raw_body('{"jsonrpc": "2.0", "id": {id}, "result": {"text": 5}}'), None),
    ("error without message or code", raw_body('{"jsonrpc": "2.0", "id": {id}, "error": {}}'), None),
    ("error a string", raw_body('{"jsonrpc": "2.0", "id": {id}, "error": "boom"}'), None),
    ("error null", raw_body('{"jsonrpc": "2.0", "id": {id}, "error": null}'), None),
    ("a reply, then the same reply again", lambda m: good(m) + good(m), None),
]


def run_turn(sc: RawSidecar, turn_id: str, reply: Reply, turn: dict[str, Any] = TURN, timeout: float = 40
             ) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """Start a turn and answer each of its ``council/complete`` requests with ``reply``: the turn's response, the
    requests, and the other responses (the sidecar's refusals) that came before it."""
    sc.send(request(turn_id, "council/turn", turn))
    asked: list[dict[str, Any]] = []
    refusals: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        message = sc.next(timeout=max(0.1, deadline - time.monotonic()))
        if message.get("method") == "council/complete":
            asked.append(message)
            sc.send(reply(message))
        elif "method" not in message and message.get("id") == turn_id:
            return message, asked, refusals
        elif "method" not in message:
            refusals.append(message)


shared = pytest.fixture(scope="module")(lambda: (yield from _client_sidecar()))


def _client_sidecar():
    with RawSidecar(argv=CLIENT) as sc:
        sc.initialize()
        yield sc
        sc.send(request("bye", "shutdown"), notification("exit"))
        assert sc.until("bye")[0]["result"] is None
        assert sc.exit_code() == 0
    stderr = sc.stderr.decode()
    assert "Traceback" not in stderr and "InvalidStateError" not in stderr, stderr[-3000:]


@pytest.mark.parametrize(("reply", "code"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_a_malformed_reply_fails_its_model_call_and_the_turn_is_answered(shared: RawSidecar, reply: Reply,
                                                                         code: int | None) -> None:
    """Before: a reply with neither result nor error, or not JSON, was refused with id null and the model call
    waited for ever (the turn hung until council/stop). Now each such call fails at once (the default deadline is
    ten minutes: the test's 40 s are not it), every advisor fails, and the turn says so."""
    response, asked, refusals = run_turn(shared, f"t-{time.monotonic_ns()}", reply)
    assert asked, response
    assert "result" in response or assert_error(response, response["error"]["code"], response["id"],
                                                response["error"]["data"]["code"])
    if code is not None:
        assert len(refusals) == len(asked), refusals
        for refusal in refusals:
            assert_error(refusal, code, None)
    else:
        assert refusals == [], refusals
    assert "result" in run_turn(shared, "after", good)[0]  # the process serves on: a good turn succeeds


def test_a_good_turn_completes_after_every_malformed_reply(shared: RawSidecar) -> None:
    response = run_turn(shared, "good", good)[0]
    assert response["result"]["status"] == "completed", response


def test_a_reply_that_never_comes_ends_at_the_deadline_and_a_live_stream_is_not_cut() -> None:
    """Before: a council/complete the client never answered (or answered with an id the sidecar cannot read) had no
    deadline. Now it is withdrawn ($/cancelRequest) after COUNCIL_COMPLETE_TIMEOUT seconds with neither a reply nor
    a streamed delta — and a reply that streams for longer than that is never cut."""
    with RawSidecar(argv=CLIENT, env={"COUNCIL_COMPLETE_TIMEOUT": "1.5"}) as sc:
        sc.initialize()
        for turn_id, reply in (("silent", lambda m: b""),
                               ("float id", raw_body('{"jsonrpc": "2.0", "id": 1.5, "result": {"text": "{}"}}')),
                               ("null id", raw_body('{"jsonrpc": "2.0", "id": null, "result": {"text": "{}"}}'))):
            started = time.monotonic()
            sc.send(request(turn_id, "council/turn", TURN))
            asked: list[str] = []
            while "method" in (message := sc.next(timeout=30)) or message.get("id") != turn_id:
                if message.get("method") == "council/complete":
                    asked.append(message["id"])
                    sc.send(reply(message))
                elif message.get("method") == "$/cancelRequest":
                    asked.remove(message["params"]["id"])  # withdrawn, once each
            assert asked == [] and time.monotonic() - started < 20, (asked, message)
        streamed = stream_every_reply(sc, seconds=3.0, every=0.4)
        assert streamed["result"]["status"] == "completed", streamed
        sc.send(request("bye", "shutdown"), notification("exit"))
        sc.until("bye")
        assert sc.exit_code() == 0


def stream_every_reply(sc: RawSidecar, seconds: float, every: float) -> dict[str, Any]:
    """A slow client: each council/complete streams its text a character every ``every`` s for ``seconds``, then
    replies with the whole text."""
    sc.send(request("stream", "council/turn", TURN))
    pending: dict[str, tuple[dict[str, Any], float, str]] = {}  # id → request, when it came, what is left to stream
    next_delta = time.monotonic()
    while True:
        try:
            message = sc.next(timeout=0.05)
        except queue.Empty:  # nothing new: stream on
            message = {}
        if message.get("method") == "council/complete":
            pending[message["id"]] = (message, time.monotonic(), client_model_reply(message["params"])[1])
        elif message.get("method") == "$/cancelRequest":
            raise AssertionError(f"a live stream was withdrawn: {message}")
        elif "method" not in message and message.get("id") == "stream":
            return message
        now = time.monotonic()
        if now >= next_delta:
            next_delta = now + every
            for msg_id, (asked, since, left) in list(pending.items()):
                if now - since < seconds:
                    sc.send(notification("council/completeDelta", {"streamId": asked["params"]["streamId"],
                                                                    "text": left[:1]}))
                    pending[msg_id] = (asked, since, left[1:])
                else:
                    sc.send(good(asked))
                    del pending[msg_id]
