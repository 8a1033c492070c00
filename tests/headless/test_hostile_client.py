"""A client no sidecar can be broken by: raw bad frames, each followed by a good request that must be answered.

All framing cases share one ``council serve`` process, in order: the stream has to stay in sync across every one
of them. Each case lists the errors (id, JSON-RPC code) the bad bytes must get — exactly those, before the good
request's answer.
"""

from __future__ import annotations

import itertools
import json

import pytest

from council.transport.framing import MAX_MESSAGE_BYTES

from .raw import RawSidecar, assert_error, frame, initialized_sidecar, request

PERSONAS = request(0, "council/personas")  # the good request (id replaced per case)
BODY = json.dumps(request("bad", "council/personas")).encode()
_ids = itertools.count(1)

# (name, bad bytes, expected errors before the good answer as (id, code); None = also no answer expected)
FRAMING_CASES: list[tuple[str, bytes, list[tuple[object, int]]]] = [
    ("lowercase header name", frame(request("lc", "council/personas"), header=b"content-length: %d\r\n\r\n"),
     [("lc", 0)]),
    ("upper-case header name", frame(request("uc", "council/personas"), header=b"CONTENT-LENGTH: %d\r\n\r\n"),
     [("uc", 0)]),
    ("no space after the colon", frame(request("ns", "council/personas"), header=b"Content-Length:%d\r\n\r\n"),
     [("ns", 0)]),
    ("whitespace and Content-Type", frame(request("ct", "council/personas"), header=(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: \t %d  \r\n\r\n")),
     [("ct", 0)]),
    ("LF-only line ends", frame(request("lf", "council/personas"), header=b"Content-Length: %d\n\n"),
     [("lf", 0)]),
    ("blank lines between frames", b"\r\n\r\n\n" + frame(request("bl", "council/personas")) + b"\r\n",
     [("bl", 0)]),
    ("negative length", b"Content-Length: -5\r\n\r\n" + BODY, [(None, -32700)]),
    ("non-numeric length", b"Content-Length: abc\r\n\r\n" + BODY, [(None, -32700)]),
    ("two different lengths", b"Content-Length: 3\r\ncontent-length: 4\r\n\r\n" + BODY, [(None, -32700)]),
    ("no Content-Length", b"Content-Type: application/json\r\n\r\n" + BODY, [(None, -32700)]),
    ("body with no header", BODY, [(None, -32700)]),
    ("body with no header, newline", BODY + b"\r\n", [(None, -32700)]),
    ("binary junk", b"\x00\xff\xfe junk \r\n\r\n\x89PNG\r\n", [(None, -32700)]),
    ("header line too long", b"X-Pad: " + b"a" * 9000 + b"\r\n\r\n" + BODY, [(None, -32700)]),
    ("length one byte short", frame(BODY, length=len(BODY) - 1), [(None, -32700)]),
    ("length ten bytes short", frame(BODY, length=len(BODY) - 10), [(None, -32700)]),
    ("length one byte long", frame(BODY, length=len(BODY) + 1), [("bad", -32600)]),
    ("length 40 bytes long", frame(BODY, length=len(BODY) + 40), [("bad", -32600)]),
    ("length zero", frame(b"", length=0), [(None, -32700)]),
    ("length 10^12", b"Content-Length: 1000000000000\r\n\r\n" + BODY, [("bad", -32600)]),
    ("length past the cap, body sent", frame(b'{"pad": "' + b"x" * (MAX_MESSAGE_BYTES + 10) + b'"}'),
     [(None, -32600)]),
    ("a request past the cap, its id first", frame(request("huge", "council/turn", {"text": "x" * MAX_MESSAGE_BYTES})),
     [("huge", -32600)]),
    ("refused body quoting headers, frame glued on", frame(
        b'{"a": "Content-Length: 5",\n "b": "content-length:7"\r\n, "pad": "' + b"z" * MAX_MESSAGE_BYTES + b'"}')
     + frame(request("glued", "council/personas")), [(None, -32600), ("glued", 0)]),
    ("body not JSON", frame(b"{not json}"), [(None, -32700)]),
    ("body not UTF-8", frame(b'{"jsonrpc": "2.0", "id": "\xff\xfe", "method": "x"}'), [(None, -32700)]),
    ("NaN in the body", frame(b'{"jsonrpc": "2.0", "id": 5, "method": "council/personas", "params": NaN}'),
     [(None, -32700)]),
    ("absurd nesting", frame(b"[" * 200_000 + b"]" * 200_000), [(None, -32700)]),
    ("a bad frame then another", b"Content-Length: x\r\n\r\n{}Content-Length: -1\r\n\r\n{}", [(None, -32700)]),
    ("a bad header glued to junk", b"garbage" + frame(request("gl", "council/personas")),
     [(None, -32700), ("gl", 0)]),
]


shared = pytest.fixture(scope="module")(initialized_sidecar)


def answer_then_good(sc: RawSidecar, bad: bytes) -> list[dict]:
    """Send ``bad`` then a good request in one write; the messages before the good answer."""
    good_id = next(_ids)
    sc.send(bad, {**PERSONAS, "id": good_id})
    response, before = sc.until(good_id, timeout=60)
    assert "personas" in response["result"], response
    return before


@pytest.mark.parametrize(("bad", "expected"), [c[1:] for c in FRAMING_CASES], ids=[c[0] for c in FRAMING_CASES])
def test_bad_frame_is_answered_and_the_next_request_too(shared: RawSidecar, bad: bytes,
                                                        expected: list[tuple[object, int]]) -> None:
    before = [m for m in answer_then_good(shared, bad) if m.get("method") is None]
    assert [m.get("id") for m in before] == [msg_id for msg_id, _ in expected], before
    for message, (msg_id, code) in zip(before, expected, strict=True):
        if code:
            data = assert_error(message, code, msg_id)
            assert "reason" in data["details"], data
        else:
            assert "personas" in message["result"], message


def test_headerless_body_is_answered_at_once(shared: RawSidecar) -> None:
    """The client need not send anything else for its junk to be refused."""
    shared.send(BODY)
    data = assert_error(shared.next(timeout=10), -32700)
    assert "Content-Length" in data["message"]
    assert answer_then_good(shared, b"") == []


def test_too_large_is_refused_before_the_body_arrives(shared: RawSidecar) -> None:
    shared.send(b"Content-Length: 99999999999\r\n\r\n")
    data = assert_error(shared.next(timeout=10), -32600)
    assert data["details"] == {"reason": "too large", "limit": MAX_MESSAGE_BYTES, "declared": 99999999999}
    shared.send(b'{"pad": "' + b"y" * 100_000 + b'"}')  # the refused body, scanned and dropped
    assert answer_then_good(shared, b"") == []


def test_a_length_too_long_with_nothing_after_it_is_answered(shared: RawSidecar) -> None:
    """The client waits for its answer and sends nothing more: the sidecar must not wait for the missing bytes."""
    shared.send(frame(BODY, length=len(BODY) + 3))
    data = assert_error(shared.next(timeout=10), -32600, "bad")
    assert data["details"] == {"reason": "length mismatch", "declared": len(BODY) + 3, "used": len(BODY)}
    assert answer_then_good(shared, b"") == []


def test_short_length_is_reported_once(shared: RawSidecar) -> None:
    before = answer_then_good(shared, frame(BODY, length=5) + frame(BODY, length=len(BODY) - 2))
    assert len(before) == 2 and all(m["error"]["code"] == -32700 for m in before), before


def test_bytes_split_anywhere_still_frame(shared: RawSidecar) -> None:
    """A good request written one byte at a time is answered once."""
    good = frame(request("split", "council/personas"), header=b"content-length:%d\n\n")
    for i in range(len(good)):
        shared.send(good[i:i + 1])
    response, before = shared.until("split")
    assert before == [] and "result" in response
