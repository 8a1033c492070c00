"""LSP framing, the one implementation: the sidecar's reader that always resynchronises, the client's strict reader
(``strict=True``: a byte vscode-jsonrpc could not read is a fault) and the frame encoder both write with.

:class:`FrameReader` is sans-IO (``feed(bytes)`` → :class:`Message` or :class:`Fault` events). What it accepts and
how it recovers is docs/protocol.md's "Framing". Resynchronising at the next ``Content-Length`` keyword cannot split
a well-formed frame: a JSON body can never hold a valid header line (a JSON string cannot contain a raw line break).
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, BinaryIO, NamedTuple

from council.errors import ErrorCode
from council.protocol.constants import INVALID_REQUEST, JSONRPC_CODES, PARSE_ERROR
from council.transport.jsonrpc import RpcError, valid_id

log = logging.getLogger("council.serve")

MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # the largest body the sidecar reads (16 MiB); larger frames are refused
MAX_HEADER_BYTES = 8 * 1024  # a whole header block; longer is junk
ID_SCAN_BYTES = 4 * 1024  # how much of a refused (too large) body is read for its id

_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]"
_HEADER_LINE = re.compile(rb"(" + _TOKEN + rb"+)[ \t]*:[ \t]*(.*?)[ \t]*")
_HEADER_PARTIAL = re.compile(_TOKEN + rb"*(?:[ \t]*(?::[^\n]*)?)?\r?")  # a line that may still become a header
_LENGTH = re.compile(rb"[0-9]{1,20}")
_KEYWORD = re.compile(rb"content-length", re.IGNORECASE)
_KEYWORD_TAIL = len(b"content-length") - 1
_BLANK = frozenset(b" \t\r\n")
_STRICT_NAMES = (b"content-length", b"content-type")
_MORE = object()  # the reader needs more bytes


@dataclass(frozen=True)
class Message:
    """One decoded JSON value. ``used < declared`` when the declared length ran past the JSON (a framing bug
    of the client: the surplus went back to the stream and the message is refused, not run)."""

    value: Any
    declared: int
    used: int

    @property
    def length_mismatch(self) -> bool:
        return self.used != self.declared


@dataclass(frozen=True)
class Fault:
    """A malformed frame: the JSON-RPC error code to answer with, a message and details. ``id``: the refused frame
    is a request whose id could be read (answer with it, else id null); ``response_to``: it may be a response to the
    sidecar's own request with that id (no method was read; when the sidecar waits for one, it settles as failed)."""

    code: int
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    id: Any = None
    response_to: Any = None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_float(text: str) -> float | int:
    """A float, or for one too large for a double (``1e999``) the exact integer, which a field refuses by its range
    (as infinity the MCP SDK made it ``null``); at 4300 digits (``int(str)``'s limit) or with a fraction, not JSON."""
    value = float(text)
    if not math.isinf(value):
        return value
    exact = Decimal(text)
    if exact.adjusted() >= 4300 or exact != exact.to_integral_value():
        raise ValueError(f"{text[:40]} is too large a number")
    return int(exact)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)


def decode_json(text: str) -> Any:
    """Strict JSON (no NaN/Infinity; a number too large for a double is its exact integer); raises ValueError (or
    RecursionError for absurd nesting)."""
    return _DECODER.decode(text)


def _json_prefix(data: bytes) -> tuple[Any, int, bool] | None:
    """The JSON value at the start of ``data``: (value, bytes it took, whether non-blank bytes follow), or None."""
    text = data.decode("utf-8", "surrogateescape")
    start = len(text) - len(text.lstrip())
    try:
        value, end = _DECODER.raw_decode(text, start)
        used = len(text[:end].encode("utf-8"))  # strict: a lone surrogate (bad UTF-8) fails here
    except (ValueError, RecursionError):
        return None
    return value, used, bool(text[end:].strip())


class Envelope(NamedTuple):
    """What a body read in part says: its ``id`` (None: not read); a ``result``/``error`` or a ``method`` came."""

    id: Any
    response: bool
    request: bool

    @property
    def reply_to(self) -> Any:
        """The id of the sidecar's request this body answers: a response, or a body with an id and no method."""
        return self.id if valid_id(self.id) and not self.request else None


def peek_envelope(data: bytes, final: bool) -> Envelope | None:
    """The id at the start of a body too large (or too broken) to read and what kind of message it is, or None
    while more bytes could still tell (``final``: they cannot; take what was read).

    The body's top-level members are read in order with the JSON decoder until the id and the method (or a
    ``result``/``error``) are known, or a member runs past ``data`` (a request's big ``params`` usually come last)."""
    text = data.decode("utf-8", "ignore")  # a character cut at the end is dropped
    seen: dict[str, Any] = {}
    response = False
    pos = _skip_blank(text, 0)
    if pos < len(text) and text[pos] != "{":
        return Envelope(None, False, False)  # not an object: no id to answer with
    pos = _skip_blank(text, pos + 1)
    while pos < len(text):
        if text[pos] != '"':  # "}" or not JSON: what was read is all there is
            return Envelope(seen.get("id"), response, "method" in seen)
        try:
            key, pos = json.decoder.scanstring(text, pos + 1)
            pos = _skip_blank(text, pos)
            if pos < len(text) and text[pos] != ":":
                return Envelope(seen.get("id"), response, "method" in seen)
            response = response or key in ("result", "error")
            value, pos = _DECODER.raw_decode(text, _skip_blank(text, pos + 1))
        except (ValueError, RecursionError):  # a key or value past the end of the bytes read (or broken)
            break
        pos = _skip_blank(text, pos)
        if pos >= len(text):  # a number may go on in the bytes not read yet
            break
        seen.setdefault(key, value)
        if "id" in seen and ("method" in seen or response):
            break
        if text[pos] == ",":
            pos = _skip_blank(text, pos + 1)
    if final or ("id" in seen and ("method" in seen or response)):
        return Envelope(seen.get("id"), response, "method" in seen)
    return None


def _skip_blank(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def encode_json(message: Any) -> bytes:
    """Compact UTF-8 JSON of ``message``, whatever text it holds (NaN refused: ValueError).

    A string with a lone surrogate (``"\\ud800"`` is valid JSON, so a client's id or method can hold one and the
    gate echoes them) has no UTF-8 form: such a message is written with ASCII escapes (``\\ud800``) instead, so it
    is always encodable and echoes the client's id exactly, which a replacement character would not."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii")


def encode_frame(message: Any) -> bytes:
    body = encode_json(message)
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _excerpt(data: bytes | bytearray, limit: int = 80) -> str:
    return bytes(data[:limit]).decode("utf-8", "replace")


class FrameReader:
    """Incremental frame parser: ``feed`` bytes, get :class:`Message` and :class:`Fault` events in order."""

    def __init__(self, max_message: int = MAX_MESSAGE_BYTES, *, strict: bool = False) -> None:
        """``strict``: what a client reads from the sidecar — only ``Content-Length``/``Content-Type`` headers with
        CRLF line ends and nothing between frames, as vscode-jsonrpc needs (any other byte is a fault)."""
        self.max_message = max_message
        self.strict = strict
        self._buf = bytearray()
        self._length: int | None = None  # body length once a header block was read
        self._refusing: int | None = None  # the declared length of a body too large to read: its id is looked for
        self._scanning = False  # discarding bytes up to the next Content-Length keyword
        self._quiet = False  # a fault was reported; stay quiet until a header block parses again

    def feed(self, data: bytes) -> list[Message | Fault]:
        self._buf += data
        events: list[Message | Fault] = []
        while True:
            event = self._next()
            if event is _MORE:
                return events
            if event is not None:
                events.append(event)  # type: ignore[arg-type]

    @property
    def awaiting_body(self) -> bool:
        """A header block was read and its body is still incomplete (or, when too large, its start unread)."""
        return self._length is not None or self._refusing is not None

    def stalled(self) -> list[Message | Fault]:
        """The input went quiet inside a body: if the bytes so far are a whole JSON value, the declared length was
        too long — take the value (refused as a length mismatch) instead of waiting for bytes that never come. A
        body too large to read is refused with whatever id its first bytes gave."""
        if self._refusing is not None:
            return [self._refuse_large(final=True)]  # type: ignore[list-item]
        if self._length is None:
            return []
        prefix = _json_prefix(bytes(self._buf))
        if prefix is None or prefix[2]:
            return []
        declared, self._length, self._quiet = self._length, None, True
        del self._buf[:prefix[1]]
        return [Message(prefix[0], declared, prefix[1])]

    def close(self) -> Fault | None:
        """End of stream: a fault when it cut a frame short (whitespace and discarded junk are fine)."""
        if self._refusing is not None:
            return self._refuse_large(final=True)  # type: ignore[return-value]
        if self._length is not None:
            return Fault(PARSE_ERROR, f"the stream ended {self._length - len(self._buf)} bytes short of a "
                                      f"{self._length}-byte body", {"reason": "truncated"})
        if not self._scanning and (self._buf if self.strict else any(b not in _BLANK for b in self._buf)):
            return Fault(PARSE_ERROR, "the stream ended inside a header block", {"reason": "truncated"})
        return None

    # --- states ---------------------------------------------------------------------------------------------
    def _next(self) -> object:
        if self._scanning:
            return self._scan()
        if self._refusing is not None:
            return self._refuse_large(final=len(self._buf) >= ID_SCAN_BYTES)
        if self._length is not None:
            return self._body()
        return self._headers()

    def _scan(self) -> object:
        match = _KEYWORD.search(self._buf)
        if match is None:
            if len(self._buf) > _KEYWORD_TAIL:  # keep a tail: the keyword may be split across reads
                del self._buf[:-_KEYWORD_TAIL]
            return _MORE
        del self._buf[:match.start()]
        self._scanning = False
        return None

    def _headers(self) -> object:
        buf = self._buf
        start = 0
        while not self.strict and start < len(buf) and buf[start] in _BLANK:
            start += 1
        if start:
            del buf[:start]
        if not buf:
            return _MORE
        headers: dict[bytes, bytes] = {}
        pos = 0
        while True:
            end = buf.find(b"\n", pos)
            if end < 0:
                if not _HEADER_PARTIAL.fullmatch(buf, pos):
                    return self._junk(pos)
                if len(buf) > MAX_HEADER_BYTES:
                    return self._fault("a header block longer than 8 KiB", "header too long", buf, 1)
                return _MORE
            line = bytes(buf[pos:end])
            line_start, pos, crlf = pos, end + 1, line.endswith(b"\r")
            if self.strict and not crlf:
                return self._junk(line_start)
            if not (line := line.removesuffix(b"\r")):
                break
            match = _HEADER_LINE.fullmatch(line)
            name = match[1].lower() if match else b""
            if match is None or pos > MAX_HEADER_BYTES or (self.strict and name not in _STRICT_NAMES):
                return self._junk(line_start)
            value = match[2]
            if name == b"content-length" and (not _LENGTH.fullmatch(value) or headers.get(name, value) != value):
                return self._fault(f"invalid Content-Length header: {_excerpt(line)!r}", "bad content-length", line,
                                   line_start + 1)
            headers[name] = value
        if b"content-length" not in headers:
            return self._fault("a header block without Content-Length", "no content-length", buf[:pos], 1)
        del buf[:pos]
        length = int(headers[b"content-length"])
        if length > self.max_message:  # a new frame, so reported even while quiet, once its id is looked for
            self._refusing, self._quiet = length, True
        else:
            self._length, self._quiet = length, False
        return None

    def _refuse_large(self, final: bool) -> object:
        """A body too large to read: its first bytes (up to :data:`ID_SCAN_BYTES`) give its id when they can, then
        it is scanned like junk (from its first byte: a frame glued into it still frames)."""
        length = self._refusing
        assert length is not None
        peek = peek_envelope(bytes(self._buf[:ID_SCAN_BYTES]), final)
        if peek is None:
            return _MORE
        self._refusing, self._scanning = None, True
        msg_id = peek.id if valid_id(peek.id) and not peek.response else None
        return Fault(INVALID_REQUEST, f"a {length}-byte message exceeds the {self.max_message}-byte limit",
                     {"reason": "too large", "limit": self.max_message, "declared": length},
                     id=msg_id, response_to=peek.reply_to)

    def _body(self) -> object:
        length = self._length
        assert length is not None
        if len(self._buf) < length:
            return _MORE
        self._length = None
        body = bytes(self._buf[:length])
        try:
            value = decode_json(body.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            return self._bad_body(body, exc)
        del self._buf[:length]
        return Message(value, length, length)

    def _bad_body(self, body: bytes, exc: Exception) -> object:
        """Not JSON: maybe the declared length ran past the JSON value (give the surplus back), else a fault."""
        prefix = _json_prefix(body)
        if prefix is None:
            del self._buf[:len(body)]
            self._quiet = True  # a length that fell short leaves the body's tail: skip it without a second fault
            reason = "not UTF-8" if isinstance(exc, UnicodeDecodeError) else "invalid JSON"
            return Fault(PARSE_ERROR, f"the {len(body)}-byte body is not valid JSON: {str(exc)[:200]}",
                         {"reason": reason, "declared": len(body)},  # id null; a reply's id fails its request
                         response_to=peek_envelope(body, final=True).reply_to)  # type: ignore[union-attr]
        del self._buf[:prefix[1]]
        self._quiet = True
        return Message(prefix[0], len(body), prefix[1])

    # --- faults ---------------------------------------------------------------------------------------------
    def _junk(self, at: int) -> object:
        line_end = self._buf.find(b"\n", at)
        line = self._buf[at:line_end if line_end >= 0 else at + 80]
        what = "expected a Content-Length header" if at == 0 else "not a header line"
        return self._fault(f"{what}: {_excerpt(line)!r}", "not a header", line, at + 1)

    def _fault(self, message: str, reason: str, seen: bytes | bytearray, resume: int) -> object:
        """Report (unless quiet) and resynchronise: scan for the next keyword from byte ``resume`` (≥ 1) on.

        ``resume`` is just past the start of the failing line: a good header may be glued inside it (junk, or a
        refused body, then a frame), and earlier lines of a failed block, valid or not, are void."""
        del self._buf[:resume]
        self._scanning = True
        if self._quiet:
            return None
        self._quiet = True
        return Fault(PARSE_ERROR, message, {"reason": reason, "received": _excerpt(seen)})


class FrameWriter:
    """The protocol stdout, as pygls's writer (``write(body)``: a message pygls serialised, decoded and handed to
    ``outgoing``, the gate's look at it) and the gate's (``send(message)``); both frame with ``encode_frame``. A failed
    write marks it broken, logs one line and calls ``on_broken``; later writes and writes after ``close`` are
    dropped."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.closed = False
        self.on_broken: Callable[[], None] = lambda: None
        self.outgoing: Callable[[dict[str, Any]], dict[str, Any] | None] = lambda message: message  # None: not sent

    def write(self, body: bytes) -> None:
        message = self.outgoing(json.loads(body))  # seen by the gate even when closed; NaN is refused by send
        if message is not None:
            self.send(message)

    def send(self, message: dict[str, Any]) -> None:
        """Frame and write ``message``. One that cannot be JSON (never expected: every value the gate echoes came
        from JSON) is not lost silently: a response still settles its request, as an internal error."""
        if self.closed:
            return
        try:
            data = encode_frame(message)
        except (TypeError, ValueError, RecursionError) as exc:
            log.error("council serve: an outgoing message could not be encoded (%s)", exc)
            if "id" not in message or "method" in message:
                return
            error = RpcError(JSONRPC_CODES[ErrorCode.INTERNAL], "the response could not be encoded", ErrorCode.INTERNAL)
            data = encode_frame({"jsonrpc": "2.0", "id": message["id"], "error": error.to_wire()})
        view = memoryview(data)  # a raw stream may take it in parts
        try:
            while view:
                written = self.stream.write(view)
                if written is None:
                    raise BlockingIOError("stdout is non-blocking and full")
                view = view[written:]
            self.stream.flush()
        except OSError as exc:
            self.closed = True
            log.error("council serve: writing to the client failed (%s); exiting", exc)
            self.on_broken()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.stream.close()
            except OSError:
                pass
