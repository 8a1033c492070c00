"""Well-framed but hostile messages and lifecycle abuse against the real ``council serve``: every request with an id
gets exactly one response with the contract's error data, nothing runs that should not, and the sidecar keeps
serving (or exits with LSP's exit code when told to)."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import textwrap

import pytest

from council.protocol.constants import MAX_CONTEXT, MAX_TEXT
from council.transport.framing import MAX_MESSAGE_BYTES

from .conftest import PROBLEM
from .raw import SERVE, RawSidecar, assert_error, frame, initialized_sidecar, notification, request

_ids = itertools.count(1)
TURN = {"text": PROBLEM, "options": {"clarify": False, "maxCycles": 1}}

# (name, message, expected (id, code) before the good answer: code 0 = a result)
MESSAGE_CASES: list[tuple[str, object, list[tuple[object, int]]]] = [
    ("method is a number", request("m7", 7), [("m7", -32600)]),
    ("method is null", request("mnull", None), [("mnull", -32600)]),
    ("method is empty", request("mempty", ""), [("mempty", -32600)]),
    ("notification with a numeric method", {"jsonrpc": "2.0", "method": 7}, [(None, -32600)]),
    ("id is an object", request({"a": 1}, "council/turn", TURN), [(None, -32600)]),
    ("id is an array", request([1], "council/turn", TURN), [(None, -32600)]),
    ("id is a float", request(1.5, "council/turn", TURN), [(None, -32600)]),
    ("id is a boolean", request(True, "council/turn", TURN), [(None, -32600)]),
    ("id is null", request(None, "council/turn", TURN), [(None, -32600)]),
    ("jsonrpc 1.0", {**request("v1", "council/personas"), "jsonrpc": "1.0"}, [("v1", -32600)]),
    ("no jsonrpc member", {"id": "nov", "method": "council/personas"}, [("nov", -32600)]),
    ("params is a string", request("pstr", "council/personas", "x"), [("pstr", -32600)]),
    ("body is a string", "hello", [(None, -32600)]),
    ("body is null", None, [(None, -32600)]),
    ("empty batch", [], [(None, -32600)]),
    ("batch of requests", [request("b1", "council/personas"), request("b2", "council/providers")],
     [("b1", -32600), ("b2", -32600)]),
    ("neither method nor result", {"jsonrpc": "2.0", "id": "nothing"}, [(None, -32600)]),
    ("unknown method without params", request("unk", "council/dance"), [("unk", -32601)]),
    ("$/ request", request("dollar", "$/setTrace", {"value": "off"}), [("dollar", -32601)]),
    ("notification sent with an id", request("initd", "initialized", {}), [("initd", -32601)]),
    ("$/cancelRequest with an id", request("cr", "$/cancelRequest", {"id": 1}), [("cr", -32601)]),
    ("exit with an id is not an exit", request("ex", "exit"), [("ex", -32601)]),
    ("unknown notification", notification("council/nothing", {"x": 1}), []),
    ("$/setTrace notification", notification("$/setTrace", {"value": "verbose"}), []),
    ("request method as a notification", notification("council/turn", TURN), []),
    ("response to an unknown id", {"jsonrpc": "2.0", "id": "zz", "result": 1}, []),
    ("response with an object id", {"jsonrpc": "2.0", "id": {}, "error": {"code": 1}}, []),
    ("nested jsonrpc in params", request("nest", "council/turn", {
        "text": "hi", "options": {"jsonrpc": "2.0", "id": 9, "method": "exit"}}), [("nest", -32602)]),
    ("id with a lone surrogate, refused", request("\ud800", "council/dance"), [("\ud800", -32601)]),
    ("id with a lone surrogate, served", request("ok\udfff", "council/personas"), [("ok\udfff", 0)]),
    ("method with a lone surrogate", request("msur", "council/\udfff"), [("msur", -32601)]),
    ("batch with object and array ids", [request({}, "council/personas"), request([1], "council/personas"),
                                         request("b3", "council/personas"), notification("council/nothing")],
     [(None, -32600), (None, -32600), ("b3", -32600)]),
    ("duplicate keys: last wins", b'{"jsonrpc": "2.0", "id": "dup", "method": 7, "method": "council/personas"}',
     [("dup", 0)]),
]


shared = pytest.fixture(scope="module")(initialized_sidecar)


@pytest.mark.parametrize(("message", "expected"), [c[1:] for c in MESSAGE_CASES], ids=[c[0] for c in MESSAGE_CASES])
def test_bad_message_is_refused_and_nothing_runs(shared: RawSidecar, message: object,
                                                 expected: list[tuple[object, int]]) -> None:
    good_id = next(_ids)
    shared.send(frame(message if isinstance(message, bytes) else json.dumps(message).encode()),
                request(good_id, "council/personas"))
    response, before = shared.until(good_id)
    assert "personas" in response["result"]
    assert not [m for m in before if m.get("method") == "council/event"], "a refused turn must not run"
    assert [m.get("id") for m in before] == [msg_id for msg_id, _ in expected], before
    for message_, (msg_id, code) in zip(before, expected, strict=True):
        if code:
            assert_error(message_, code, msg_id)
        else:
            assert "result" in message_


def test_error_details(shared: RawSidecar) -> None:
    shared.send(request("u", "council/dance"))
    unknown = assert_error(shared.until("u")[0], -32601, "u")
    assert unknown["details"] == {"reason": "unknown method", "method": "council/dance"}
    shared.send(request("n", "council/turn", {"text": "x", "options": {"jsonrpc": "2.0"}}))
    nested = assert_error(shared.until("n")[0], -32602, "n")
    assert "options.jsonrpc" in nested["details"]["fields"]
    shared.send(request("i", "initialize", {"capabilities": {}}))
    again = assert_error(shared.until("i")[0], -32600, "i")
    assert again["details"]["reason"] == "already initialized"


def test_requests_before_initialize_and_bad_initialize_params() -> None:
    with RawSidecar() as sc:
        sc.send(request(1, "council/personas"), request(2, "council/dance"), notification("initialized"),
                request(3, "initialize", {"processId": "me", "clientInfo": {"name": 5}}),
                request(4, "initialize", [1, 2]), request(5, "initialize", "x"))
        assert assert_error(sc.until(1)[0], -32002, 1)["details"]["reason"] == "not initialized"
        assert_error(sc.until(2)[0], -32002, 2)
        fields = assert_error(sc.until(3)[0], -32602, 3)["details"]["fields"]
        assert {"processId", "clientInfo.name"} <= set(fields)
        assert_error(sc.until(4)[0], -32602, 4)
        assert_error(sc.until(5)[0], -32600, 5)
        # nested "jsonrpc" objects in params are data, not messages: this must neither exit nor shut down
        sc.send(request(6, "initialize", {"processId": None, "capabilities": {
            "experimental": {"jsonrpc": "2.0", "method": "exit"}},
            "initializationOptions": {"jsonrpc": "2.0", "id": 99, "method": "shutdown"}}))
        result = sc.until(6)[0]["result"]
        assert result["serverInfo"]["name"] == "council" and result["capabilities"] == {}
        sc.send(request(7, "council/personas"))
        assert "personas" in sc.until(7)[0]["result"]
        sc.send(notification("exit"))
        assert sc.exit_code() == 1  # exit without shutdown


def test_the_vscode_languageclient_handshake() -> None:
    """The params and notifications vscode-languageclient 11 sends (client.js initialize), then its stop()."""
    with RawSidecar() as sc:
        sc.send(request(0, "initialize", {
            "processId": None, "clientInfo": {"name": "Visual Studio Code", "version": "1.139.1"}, "locale": "en",
            "rootPath": None, "rootUri": None, "trace": "off", "workspaceFolders": None, "workDoneToken": "tok",
            "capabilities": {"workspace": {"applyEdit": True, "workspaceFolders": True}, "general": {
                "positionEncodings": ["utf-16"]}, "window": {"workDoneProgress": True}}}))
        assert sc.until(0)[0]["result"]["capabilities"] == {}
        sc.send(notification("initialized", {}), notification("$/setTrace", {"value": "verbose"}),
                notification("workspace/didChangeConfiguration", {"settings": None}),
                request(1, "council/turn", {"text": "", "command": "personas"}))
        response, before = sc.until(1)
        assert before == [] and "Devil's Advocate" in response["result"]["message"]
        sc.send(request(2, "shutdown"))
        assert sc.until(2)[0]["result"] is None
        sc.send(notification("exit"))
        assert sc.exit_code() == 0


def test_after_shutdown_every_request_is_invalid_and_exit_is_zero() -> None:
    with RawSidecar() as sc:
        sc.initialize()
        sc.send(request("s", "shutdown"))
        assert sc.until("s")[0] == {"jsonrpc": "2.0", "id": "s", "result": None}
        sc.send(request(1, "council/personas"), request(2, "council/dance"), request(3, "shutdown"),
                request(4, "initialize", {}), request(5, "exit"), notification("council/completeDelta", {}))
        for msg_id in range(1, 6):
            assert assert_error(sc.until(msg_id)[0], -32600, msg_id)["details"]["reason"] == "shutdown"
        sc.send(notification("exit"))
        assert sc.exit_code() == 0
        assert sc.quiet(0.2) == []


def test_end_of_input_exits_by_the_same_rule() -> None:
    with RawSidecar() as sc:
        sc.initialize()
        sc.send(b"Content-Length: 50\r\n\r\n{")
        sc.close_stdin()
        assert sc.exit_code() == 1
    assert "input ended inside a frame" in sc.stderr.decode()


def test_a_closed_stdout_ends_the_sidecar() -> None:
    """A client that stops reading for good: one stderr line and exit code 1, not a zombie."""
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        proc.stdout.close()
        proc.stdin.write(frame(request(1, "initialize", {"capabilities": {}})))
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 1
        assert proc.stderr is not None and b"writing to the client failed" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()


def test_cancel_request_and_duplicate_ids(script_file) -> None:
    slow = script_file({"chunk": 16, "rules": [{"when": {"schema": "PersonaReply"}, "delay": 0.15}]})
    with RawSidecar(extra_args=["--script", slow]) as sc:
        sc.initialize()
        sc.send(request("slow", "council/turn", {**TURN, "options": {"clarify": False, "maxCycles": 3}}))
        while sc.next().get("params", {}).get("type") != "persona.delta":
            pass
        sc.send(request("slow", "council/personas"), notification("$/cancelRequest", {"id": "slow"}),
                notification("$/cancelRequest", {"id": "slow"}))
        duplicate = sc.until("slow")[0]
        assert assert_error(duplicate, -32600, "slow")["details"]["reason"] == "duplicate id"
        cancelled = assert_error(sc.until("slow")[0], -32800, "slow")
        assert cancelled["details"] == {"reason": "cancelled", "id": "slow"}
        sc.send(request("after", "council/personas"))
        response, before = sc.until("after")
        assert "result" in response and not [m for m in before if "id" in m], before


CRASHING = textwrap.dedent("""
    import sys
    import council.service as service
    def boom(self):
        raise RuntimeError("the persona shelf collapsed")
    service.CouncilService.personas = boom
    from council.cli.main import main
    sys.exit(main(["serve", "--provider", "scripted", "--no-embeddings"]))
""")


def test_internal_error_has_data_and_no_traceback() -> None:
    with RawSidecar(argv=[SERVE[0], "-c", CRASHING]) as sc:
        sc.initialize()
        sc.send(request(1, "council/personas"), request(2, "council/providers"))
        data = assert_error(sc.until(1)[0], -32603, 1, kind="internal")
        assert "RuntimeError: the persona shelf collapsed" in data["message"]
        assert "result" in sc.until(2)[0]
        sc.send(request(3, "shutdown"), notification("exit"))
        sc.until(3)
        assert sc.exit_code() == 0
    assert "Traceback" in sc.stderr.decode()  # the traceback goes to stderr only


def test_lsp_params_of_a_bad_shape_get_field_details() -> None:
    """The shape of LSP's top-level params is checked by the gate before anything heavy loads (each capability group
    an object, workspace folders a list): a bad one is a -32602 with fields, not a request left unanswered, and
    initialize may be sent again."""
    with RawSidecar() as sc:
        sc.send(request(1, "initialize", {"processId": None, "capabilities": {"general": 5}, "workspaceFolders": 7}))
        fields = assert_error(sc.until(1)[0], -32602, 1)["details"]["fields"]
        assert {"capabilities.general", "workspaceFolders"} <= set(fields), fields
        assert sc.initialize(2)["capabilities"] == {}
        sc.send(request(3, "shutdown"), notification("exit"))
        assert sc.until(3)[0]["result"] is None
        assert sc.exit_code() == 0


def test_capabilities_pygls_cannot_read_deep_down_are_left_to_it() -> None:
    """A capability deep inside a group is pygls's to read, after initialize is answered (the council uses none):
    one it cannot read is logged, and the sidecar serves on."""
    with RawSidecar() as sc:
        sc.send(request(1, "initialize", {"processId": None, "capabilities": {
            "general": {"staleRequestSupport": {"cancel": "often", "retryOnContentModified": 5}}}}))
        assert sc.until(1)[0]["result"]["capabilities"] == {}
        sc.send(notification("initialized", {}), request(2, "council/personas"))
        assert "personas" in sc.until(2)[0]["result"]
        sc.send(request(3, "shutdown"), notification("exit"))
        assert sc.until(3)[0]["result"] is None
        assert sc.exit_code() == 0
    assert "pygls could not take the initialize params" in sc.stderr.decode()


def test_foreign_responses_and_late_replies_are_ignored() -> None:
    """A response carrying the id of the client's own request in flight settles nothing; replies to the sidecar's
    cancelled council/complete requests arrive late and are ignored."""
    client = [SERVE[0], "-m", "council", "serve", "--provider", "client", "--no-embeddings"]
    with RawSidecar(argv=client) as sc:
        sc.initialize()
        sc.send(request("t", "council/turn", {**TURN, "client": {"completion": True}}))
        while (complete := sc.next()).get("method") != "council/complete":
            pass
        sc.send({"jsonrpc": "2.0", "id": "t", "result": {"hijacked": True}},
                notification("$/cancelRequest", {"id": "t"}))
        response, before = sc.until("t")
        assert assert_error(response, -32800, "t")["details"] == {"reason": "cancelled", "id": "t"}
        cancels = {m["params"]["id"] for m in before if m.get("method") == "$/cancelRequest"}
        assert complete["id"] in cancels, before
        sc.send(*({"jsonrpc": "2.0", "id": msg_id, "result": {"text": "late"}} for msg_id in cancels),
                request("after", "council/personas"))
        assert "personas" in sc.until("after")[0]["result"]
        sc.send(request("bye", "shutdown"), notification("exit"))
        sc.until("bye")
        assert sc.exit_code() == 0
    stderr = sc.stderr.decode()
    assert "Traceback" not in stderr and "InvalidStateError" not in stderr, stderr[-2000:]


_SURROGATE = re.compile("[\ud800-\udfff]")


def test_lone_surrogates_in_a_turn_become_replacement_characters(shared: RawSidecar) -> None:
    """A JavaScript client that cuts text by UTF-16 units can split an emoji (the extension's reference budget does):
    the turn runs (it was refused, -32602), and its events, snapshot and transcript hold U+FFFD instead."""
    shared.send(request("sur", "council/turn", {
        "text": PROBLEM + " \ud83d", "options": {"clarify": False, "maxCycles": 1},
        "references": [{"name": "notes.md \udfff", "content": "the latency budget is 200 ms \ud83d"}]}))
    response, before = shared.until("sur", timeout=60)
    assert response["result"]["status"] == "completed", response
    events = [m for m in before if m.get("method") == "council/event"]
    assert events and not _SURROGATE.search(json.dumps(events, ensure_ascii=False))
    shared.send(request("snap", "council/snapshot", {"sessionId": response["result"]["sessionId"]}))
    snapshot = shared.until("snap")[0]["result"]
    assert snapshot["session"]["requestText"].endswith(" \ufffd")
    assert not _SURROGATE.search(json.dumps(snapshot, ensure_ascii=False))
    assert "\ufffd" in snapshot["transcriptMarkdown"]


def _turn_at_every_cap(content: int) -> dict[str, object]:
    """``council/turn`` with each field at its documented cap; ``content`` characters of references in all."""
    share, rest = divmod(content, 50)
    references = [{"name": f"file{i}.py".ljust(300, "_"), "uri": "file:///" + "u" * 1992,
                   "content": "é" * (share + (i < rest))} for i in range(50)]
    return {"text": "Should we split the monolith? ".ljust(MAX_TEXT, "ж"), "references": references,
            "options": {"personas": ["Security Expert"] * 12, "depth": "deep", "maxCycles": 50, "maxPersonas": 12,
                        "extendedDebate": True, "clarify": False, "provider": "scripted", "model": "m" * 300,
                        "userId": "u" * 80},
            "client": {"completion": False, "completionModel": "c" * 300}, "idempotencyKey": "k" * 200,
            "newSessionId": "s" * 100}


def test_a_turn_at_every_cap_is_answered_and_more_context_is_refused_with_the_numbers(shared: RawSidecar) -> None:
    """MAX_CONTEXT is the whole turn's attached context: 50 references of MAX_CONTEXT each made a 10-million
    character turn whose frame outgrew the sidecar's frame limit (refused with id null: the client's request never
    settled)."""
    shared.send(request("over", "council/turn", _turn_at_every_cap(MAX_CONTEXT + 1)))
    data = assert_error(shared.until("over", timeout=30)[0], -32602, "over")
    assert data["details"]["limit"] == MAX_CONTEXT and data["details"]["actual"] == MAX_CONTEXT + 1, data
    assert set(data["details"]["fields"]) == {"references"}
    shared.send(request("cap", "council/turn", _turn_at_every_cap(MAX_CONTEXT)))
    response = shared.until("cap", timeout=60)[0]
    assert response["result"]["status"] == "completed", response


def test_a_client_answer_past_the_frame_limit_settles_the_sidecars_request() -> None:
    """The client's answer to ``council/complete`` is too large to read: that model call fails (it waited forever,
    and the turn with it) and the turn is answered."""
    client = [SERVE[0], "-m", "council", "serve", "--provider", "client", "--no-embeddings"]
    with RawSidecar(argv=client) as sc:
        sc.initialize()
        sc.send(request("t", "council/turn", {**TURN, "client": {"completion": True}}))
        refused = 0
        while "method" in (message := sc.next(timeout=30)) or message.get("id") != "t":
            if message.get("method") == "council/complete":
                sc.send(frame({"jsonrpc": "2.0", "id": message["id"], "result": {"text": "x" * MAX_MESSAGE_BYTES}}))
            elif "error" in message:
                assert assert_error(message, -32600)["details"]["reason"] == "too large"
                refused += 1
        assert refused > 0 and "result" in message, message
        sc.send(request("bye", "shutdown"), notification("exit"))
        sc.until("bye")
        assert sc.exit_code() == 0
