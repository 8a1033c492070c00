"""The frame reader without a process: leniency, recovery, chunking invariance, bounded memory, envelopes, and the
frame encoder (every outgoing message encodable)."""

from __future__ import annotations

import io
import json
import random

import pytest

from council.transport.framing import MAX_MESSAGE_BYTES, Fault, FrameReader, FrameWriter, Message, encode_frame
from council.transport.jsonrpc import Dropped, Invalid, Notification, Request, Response, classify


def frame(value: object, header: bytes = b"Content-Length: %d\r\n\r\n", length: int | None = None) -> bytes:
    body = value if isinstance(value, bytes) else json.dumps(value).encode()
    return header % (len(body) if length is None else length) + body


def summary(events: list[Message | Fault]) -> list[object]:
    return [("msg", e.value, e.length_mismatch) if isinstance(e, Message) else ("fault", e.code, e.details["reason"])
            for e in events]


GOOD = {"jsonrpc": "2.0", "id": 1, "method": "m"}
BODY = json.dumps(GOOD).encode()
HOSTILE = b"".join([
    frame(GOOD, b"content-length:%d\n\n"),
    b"\r\n",
    b"Content-Length: -5\r\n\r\n" + BODY,
    frame(GOOD, b"Content-Type: x\r\nCONTENT-LENGTH:  %d \r\n\r\n"),
    BODY,
    frame(GOOD),
    frame(BODY, length=len(BODY) - 1),
    frame(GOOD),
    frame(BODY, length=len(BODY) + 3),
    frame(GOOD),
    b"Content-Length: 1000000000000\r\n\r\n" + BODY,
    frame(GOOD),
    frame(b"\xff\xfe"),
    frame("caf\u00e9"),
])
EXPECTED = [
    ("msg", GOOD, False),
    ("fault", -32700, "bad content-length"),
    ("msg", GOOD, False),
    ("fault", -32700, "not a header"),
    ("msg", GOOD, False),
    ("fault", -32700, "invalid JSON"),
    ("msg", GOOD, False),
    ("msg", GOOD, True),
    ("msg", GOOD, False),
    ("fault", -32600, "too large"),
    ("msg", GOOD, False),
    ("fault", -32700, "not UTF-8"),
    ("msg", "caf\u00e9", False),
]


def test_a_hostile_stream_in_one_piece() -> None:
    assert summary(FrameReader().feed(HOSTILE)) == EXPECTED


@pytest.mark.parametrize("seed", range(5))
def test_any_chunking_gives_the_same_events(seed: int) -> None:
    rng = random.Random(seed)
    reader, events, i = FrameReader(), [], 0
    while i < len(HOSTILE):
        n = 1 if seed == 0 else rng.randint(1, 40)
        events += reader.feed(HOSTILE[i:i + n])
        i += n
    assert summary(events) == EXPECTED
    assert reader.close() is None


def test_junk_is_answered_without_waiting_for_more_bytes() -> None:
    reader = FrameReader()
    assert summary(reader.feed(b'{"jsonrpc"')) == [("fault", -32700, "not a header")]
    assert reader.feed(b': "2.0"}') == []
    assert summary(reader.feed(frame(GOOD))) == [("msg", GOOD, False)]


def test_partial_headers_wait() -> None:
    reader = FrameReader()
    for part in (b"Content-Le", b"ngth:", b" 3", b"\r", b"\n", b"\r", b"\n", b"[1"):
        assert reader.feed(part) == []
    assert summary(reader.feed(b"]")) == [("msg", [1], False)]


def test_memory_stays_bounded_while_scanning() -> None:
    reader = FrameReader()
    assert reader.feed(b"Content-Length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1)) == []  # its id is looked for first
    assert summary(reader.feed(b"x" * 65536)) == [("fault", -32600, "too large")]
    for _ in range(40):
        assert reader.feed(b"x" * 65536) == []
        assert len(reader._buf) < 64
    assert summary(reader.feed(frame(GOOD))) == [("msg", GOOD, False)]


def test_header_text_inside_a_refused_body_never_frames() -> None:
    """A JSON string cannot hold a raw line break, so a quoted header never parses; a glued frame still does."""
    reader = FrameReader(max_message=len(BODY))
    body = b'{"x": "Content-Length: 2",\n"y": "content-length:3"\r\n, "pad": "' + b"z" * len(BODY) + b'"}'
    events = reader.feed(frame(body) + frame(GOOD))
    assert summary(events) == [("fault", -32600, "too large"), ("msg", GOOD, False)]
    reader = FrameReader(max_message=1000)
    assert summary(reader.feed(b'{"x": "Content-Length: 3"}' + frame([1]))) == [
        ("fault", -32700, "not a header"), ("msg", [1], False)]


def test_a_stalled_body_that_is_whole_json_is_taken() -> None:
    reader = FrameReader()
    assert reader.feed(frame(BODY, length=len(BODY) + 5)) == [] and reader.awaiting_body
    assert summary(reader.stalled()) == [("msg", GOOD, True)]
    assert summary(reader.feed(b"\r\n" + frame(GOOD))) == [("msg", GOOD, False)]
    reader = FrameReader()
    reader.feed(frame(BODY, length=len(BODY) + 5)[:-3])  # an unfinished value: keep waiting
    assert reader.stalled() == [] and reader.awaiting_body


def test_long_header_block_is_junk() -> None:
    reader = FrameReader()
    events = reader.feed(b"X-Pad: " + b"a" * 9000)
    assert summary(events) == [("fault", -32700, "header too long")]


def test_end_of_stream_inside_a_frame() -> None:
    reader = FrameReader()
    reader.feed(b"Content-Length: 10\r\n\r\n{")
    fault = reader.close()
    assert fault is not None and fault.details["reason"] == "truncated"
    reader = FrameReader()
    reader.feed(b"Content-Len")
    assert reader.close() is not None
    reader = FrameReader()
    reader.feed(frame(GOOD) + b"\r\n")
    assert reader.close() is None


def test_encode_frame_counts_bytes_and_refuses_nan() -> None:
    data = encode_frame({"t": "\u00e9"})
    assert data == b'Content-Length: 10\r\n\r\n{"t":"\xc3\xa9"}'
    with pytest.raises(ValueError):
        encode_frame({"x": float("nan")})


@pytest.mark.parametrize(("value", "kind", "reply_id"), [
    ({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"jsonrpc": "2.0", "id": 2, "method": "x"}}, Request, 1),
    ({"jsonrpc": "2.0", "method": "m"}, Notification, None),
    ({"jsonrpc": "2.0", "id": "a", "result": None}, Response, "a"),
    ({"jsonrpc": "2.0", "id": None, "result": 1}, Dropped, None),
    ({"jsonrpc": "2.0", "id": True, "method": "m"}, Invalid, None),
    ({"jsonrpc": "2.0", "id": 3, "method": None}, Invalid, 3),
    ({"jsonrpc": "2.0", "id": 3, "method": "m", "params": 5}, Invalid, 3),
    ({"jsonrpc": "2.1", "id": 3, "method": "m"}, Invalid, 3),
    ([], Invalid, None),
])
def test_classify(value: object, kind: type, reply_id: object) -> None:
    envelope = classify(value)
    envelope = envelope[0] if isinstance(envelope, list) else envelope
    assert isinstance(envelope, kind)
    if isinstance(envelope, Request):
        assert envelope.params == value["params"]  # nested "jsonrpc" objects stay plain data
    if isinstance(envelope, (Request, Response, Invalid)):
        assert envelope.id == reply_id


def test_a_lone_surrogate_is_written_as_an_escape_and_echoed_exactly() -> None:
    """``"\\ud800"`` is valid JSON but has no UTF-8 form: the frame falls back to ASCII escapes (it used to raise
    UnicodeEncodeError, which ended the sidecar)."""
    message = {"jsonrpc": "2.0", "id": "a\ud800", "error": {"message": "method not found: \udfff \u00e9"}}
    data = encode_frame(message)
    header, body = data.split(b"\r\n\r\n")
    assert header == b"Content-Length: %d" % len(body) and body.isascii()
    assert json.loads(body) == message


def test_an_unencodable_response_still_settles_its_request() -> None:
    out = io.BytesIO()
    writer = FrameWriter(out)
    writer.send({"jsonrpc": "2.0", "id": 7, "result": {"x": float("nan")}})
    writer.send({"jsonrpc": "2.0", "method": "council/event", "params": {"x": float("inf")}})  # dropped, logged
    (reply,) = [json.loads(part) for part in out.getvalue().split(b"\r\n\r\n")[1:]]
    assert reply["id"] == 7 and reply["error"]["data"]["code"] == "internal"


TOO_LARGE = 200  # FrameReader(max_message=TOO_LARGE): every body below is refused unread, its id read from its start
PAD = "p" * 5000


@pytest.mark.parametrize(("body", "msg_id", "response_to"), [
    ({"jsonrpc": "2.0", "id": 7, "method": "council/turn", "params": {"text": PAD}}, 7, None),
    ({"jsonrpc": "2.0", "id": "x\ud800", "method": "m", "params": [PAD]}, "x\ud800", None),
    ({"id": "late", "params": {"text": PAD}, "method": "m"}, "late", "late"),  # method past the params: a request,
    # unless the sidecar waits for a reply with that id (the gate decides)
    ({"jsonrpc": "2.0", "params": {"text": PAD}, "id": 8, "method": "m"}, None, None),  # the id past the cut
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "m", "params": [PAD]}, None, None),  # not a valid id
    ({"jsonrpc": "2.0", "id": True, "method": "m", "params": [PAD]}, None, None),
    ({"jsonrpc": "2.0", "id": "c-1", "result": {"text": PAD}}, None, "c-1"),  # a response to the sidecar's request
    ({"jsonrpc": "2.0", "id": "c-2", "error": {"code": 1, "message": PAD}}, None, "c-2"),
    ([{"jsonrpc": "2.0", "id": 9, "method": "m"}, PAD], None, None),  # a batch: not an object
    ({"pad": PAD + "x" * 100_000}, None, None),
])
def test_a_too_large_frame_is_refused_with_the_id_its_start_gives(body: object, msg_id: object,
                                                                  response_to: object) -> None:
    data = frame(body)
    for chunk in (len(data), 1, 100):  # whole, byte by byte, in pieces: the same answer
        reader, events = FrameReader(max_message=TOO_LARGE), []
        for i in range(0, len(data), chunk):
            events += reader.feed(data[i:i + chunk])
        events += reader.feed(frame(GOOD))
        (fault, message) = events
        assert isinstance(fault, Fault) and fault.details["reason"] == "too large", events
        assert (fault.id, fault.response_to) == (msg_id, response_to)
        assert isinstance(message, Message) and message.value == GOOD


def test_a_too_large_frame_whose_body_does_not_come_is_refused_when_the_input_goes_quiet() -> None:
    reader = FrameReader(max_message=TOO_LARGE)
    assert reader.feed(b"Content-Length: 999\r\n\r\n") == [] and reader.awaiting_body
    assert summary(reader.stalled()) == [("fault", -32600, "too large")]
    reader = FrameReader(max_message=TOO_LARGE)
    assert reader.feed(b'Content-Length: 999\r\n\r\n{"jsonrpc": "2.0", "id": 12') == []  # 12 may go on: wait
    (fault,) = reader.stalled()
    assert isinstance(fault, Fault) and fault.id is None  # a number cut at the end is not taken as the id
    reader = FrameReader(max_message=TOO_LARGE)
    assert reader.feed(b'Content-Length: 999\r\n\r\n{"jsonrpc": "2.0", "id": 12, "params": {') == []
    (fault,) = reader.stalled()
    assert isinstance(fault, Fault) and fault.id == 12


@pytest.mark.parametrize(("batch", "ids"), [
    ([{"jsonrpc": "2.0", "id": {"a": 1}, "method": "m"}, {"jsonrpc": "2.0", "id": [1], "method": "m"}], [None, None]),
    ([{"jsonrpc": "2.0", "id": {}, "method": "m"}, {"jsonrpc": "2.0", "id": 3, "method": "m"}], [None, 3]),
    ([1, 2], [None, None]),
    ([{"jsonrpc": "2.0", "method": "note"}, {"jsonrpc": "2.0", "id": 4, "result": 1}], [None]),  # one for the batch
    ([], [None]),
])
def test_every_batch_element_that_expects_an_answer_gets_one(batch: list[object], ids: list[object]) -> None:
    answers = classify(batch)
    assert isinstance(answers, list) and all(isinstance(a, Invalid) for a in answers)
    assert [a.id for a in answers] == ids


def test_lone_surrogates_in_params_and_results_become_replacement_characters() -> None:
    request = classify({"jsonrpc": "2.0", "id": "\ud800", "method": "m\udfff", "params": {
        "text": "half an emoji: \ud83d", "deep": [[{"k\udc00": ["\udfff"]}]], "n": 1}})
    assert isinstance(request, Request) and request.id == "\ud800" and request.method == "m\udfff"  # echoed exactly
    assert request.params == {"text": "half an emoji: \ufffd", "deep": [[{"k\ufffd": ["\ufffd"]}]], "n": 1}
    response = classify({"jsonrpc": "2.0", "id": "c", "result": {"text": "\ud800"}})
    assert isinstance(response, Response) and response.result == {"text": "\ufffd"}
    nested: object = "\ud800"
    for _ in range(5000):  # deeper than Python's recursion limit: the walk is iterative
        nested = [nested]
    walked = classify({"jsonrpc": "2.0", "method": "m", "params": nested}).params
    while isinstance(walked, list):
        (walked,) = walked
    assert walked == "\ufffd"


@pytest.mark.parametrize(("body", "reply_to"), [
    (b'{"jsonrpc": "2.0", "id": "c-1", "result": {"text": "cut', "c-1"),  # a reply cut inside its result
    (b'{"jsonrpc": "2.0", "id": 4, garbage}', 4),  # an id, then junk: no method, so maybe a reply
    (b'{"result": {"text": "x"}, "id": "c-2", "jsonrpc": "2.0"', "c-2"),  # the id after the result, unclosed
    (b'{"jsonrpc": "2.0", "id": "c-3", "result": {"text": "\xff"}}', "c-3"),  # not UTF-8
    (b'{"jsonrpc": "2.0", "id": 5, "method": "council/turn", "params": {', None),  # a request: never a reply
    (b'{"jsonrpc": "2.0", "method": "m", "id": 6, oops}', None),
    (b'{"jsonrpc": "2.0", "id": 1.5, "result": oops}', None),  # not a valid id
    (b'{"jsonrpc": "2.0", "result": {"text": NaN}}', None),  # no id to read
    (b"[1, 2", None),
    (b"{not json}", None),
])
def test_a_body_that_is_not_json_names_the_reply_it_may_be(body: bytes, reply_to: object) -> None:
    """A broken body is refused with id null (a parse error); the id it carries, when no method came before it
    broke, is given as ``response_to``: the gate fails the sidecar's request with that id, if it waits for one."""
    events = FrameReader().feed(frame(body) + frame(GOOD))
    fault, message = events
    assert isinstance(fault, Fault) and fault.code == -32700 and fault.id is None, fault
    assert fault.response_to == reply_to
    assert isinstance(message, Message) and message.value == GOOD
