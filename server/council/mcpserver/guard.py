"""The guard in front of the MCP SDK's session: each line a client writes is checked here, and only messages the SDK
can serve reach it; everything else is answered here (the README's "As tools: MCP and agents", Errors), with the
contract's ``data`` and ``details.reason``. Why: the SDK's stdio reader drops a line it cannot validate (not JSON, a
batch, too deep, a response whose ``result`` is not an object …) and its client never gets an answer.

:class:`Guard` is sans-IO (``receive(line)`` → what to forward, what to answer). A malformed notification, or a
malformed response to nothing the server asked (:meth:`Guard.asked`), is dropped (logged); a malformed answer to one
it asked reaches the SDK as an error response (``malformed_response``), so the request waiting for it ends. Lone
surrogates become U+FFFD, except in ids and methods, kept exactly so the answer matches the request.
Beyond the README's list: an id still in flight → -32600 (``duplicate_id``); a notification's method sent with an id →
-32601; bad params → -32602 with one ``details.fields`` entry per bad field.
"""

from __future__ import annotations

import json
import logging
import re
import typing
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import mcp.types as types
from pydantic import BaseModel, ValidationError

from council.errors import from_pydantic
from council.protocol.constants import INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, SERVER_NOT_INITIALIZED
from council.transport.framing import decode_json
from council.transport.jsonrpc import Invalid, MsgId, Notification, Request, classify, invalid, valid_id

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 16 * 1024 * 1024  # the largest message read (16 MiB, as the sidecar); longer lines are refused
MAX_DEPTH = 64  # arrays and objects inside each other; tool arguments need a handful, the SDK's parser fails ~200
ID_SCAN_BYTES = 64 * 1024  # how much of a refused line is searched for its id (and kept of an overlong one)
MALFORMED_RESPONSE = "malformed_response"

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING)
_TOKEN = re.compile(_STRING + rb"|[\[\]{}:,]|-?[0-9][0-9.eE+-]*|true|false|null")
_OPEN_CLOSE = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_REASONS = {"not JSON-RPC 2.0": "not_jsonrpc"}  # the sidecar's reasons, spelled as MCP's (else " " → "_")
_ALWAYS = frozenset({"initialize", "ping"})  # the requests served before notifications/initialized


def _methods(union: Any) -> dict[str, type[BaseModel]]:
    """``{method: model}`` for the request (or notification) models of one of the SDK's unions."""
    root = union.model_fields["root"].annotation
    return {model.model_fields["method"].default: model for model in typing.get_args(root)}


REQUESTS = _methods(types.ClientRequest)
NOTIFICATIONS = _methods(types.ClientNotification)


def error_response(msg_id: MsgId | None, code: int, message: str, reason: str, **details: Any) -> dict[str, Any]:
    data = {"code": "validation", "message": message, "details": {"reason": reason, **details}}
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message, "data": data}}


def nesting_depth(line: bytes) -> int:
    """How deep arrays and objects nest in ``line`` (brackets inside strings do not count); linear, no recursion."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return 0 if not (b"[" in line or b"{" in line) else 1  # cannot exceed the limit: exactness not needed
    brackets = _STRINGS.sub(b'""', line).translate(_OPEN_CLOSE, _NOT_BRACKETS)
    return max(accumulate(memoryview(brackets).cast("b")), default=0)


def readable_id(line: bytes) -> MsgId | None:
    """The top-level ``"id"`` of a message that could not be parsed, when its bytes still show it (else None)."""
    depth, expect = 0, 0  # expect: 1 after the "id" key, 2 after its colon
    for m in _TOKEN.finditer(line[:ID_SCAN_BYTES]):
        token = m.group()
        if expect == 2:
            return _id_value(token)
        if expect == 1:
            expect = 2 if token == b":" else 0
            continue
        if token in (b"[", b"{"):
            depth += 1
        elif token in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and token == b'"id"':
            expect = 1
    return None


def _id_value(token: bytes) -> MsgId | None:
    try:  # a string exactly as sent, lone surrogates included: the answer must match it
        value = json.loads(token.decode("utf-8"))
    except ValueError:  # not UTF-8, not JSON, or an integer too long for Python to read
        return None
    return value if valid_id(value) else None


@dataclass
class Verdict:
    """What one line turned into: messages for the SDK (``forward``) and errors to answer at once (``answer``)."""

    forward: list[types.JSONRPCMessage] = field(default_factory=list)
    answer: list[dict[str, Any]] = field(default_factory=list)


class Guard:
    """The checks, with the state they need: whether the client said ``notifications/initialized``, which of its
    request ids are in flight (:meth:`answered` is told each response the server writes) and which of the server's
    own requests wait for the client's answer (:meth:`asked`)."""

    def __init__(self) -> None:
        self.initialized = False
        self.in_flight: set[MsgId] = set()
        self.asking: set[MsgId] = set()
        self.lines = 0
        self.refused = 0

    def receive(self, line: bytes) -> Verdict:
        """One line of input (without its line end)."""
        verdict = Verdict()
        line = line.strip(b" \t\r")
        if not line:
            return verdict
        self.lines += 1
        value = self._parse(line, verdict)
        if verdict.answer:
            self.refused += 1
            return verdict
        if isinstance(value, list):
            self._batch(value, verdict)
        else:
            self._message(value, verdict)
        return verdict

    def overlong(self, head: bytes) -> Verdict:
        """A line longer than :data:`MAX_LINE_BYTES` (its first bytes): refused unread."""
        self.lines += 1
        self.refused += 1
        message = f"the message is longer than {MAX_LINE_BYTES} bytes"
        return Verdict(answer=[error_response(readable_id(head), PARSE_ERROR, message, "too_long",
                                              limit=MAX_LINE_BYTES)])

    def answered(self, msg_id: Any) -> None:
        """The server wrote a response (or an error) with this id."""
        self.in_flight.discard(msg_id)

    def asked(self, msg_id: Any) -> None:
        """The server wrote a request of its own with this id (an elicitation, a ping)."""
        self.asking.add(msg_id)

    def _parse(self, line: bytes, verdict: Verdict) -> Any:
        def refuse(message: str, reason: str, **details: Any) -> None:
            verdict.answer.append(error_response(readable_id(line), PARSE_ERROR, message, reason, **details))

        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return refuse(f"the message is not UTF-8 (byte {exc.start})", "not_utf8")
        depth = nesting_depth(line)
        if depth > MAX_DEPTH:
            return refuse(f"the message nests arrays and objects {depth} deep; at most {MAX_DEPTH} are read",
                          "too_deep", limit=MAX_DEPTH)
        try:
            return decode_json(text)
        except (ValueError, RecursionError) as exc:
            return refuse(f"the message is not JSON: {str(exc)[:200]}", "not_json")

    def _batch(self, items: list[Any], verdict: Verdict) -> None:
        message = "batches are not supported (MCP 2025-06-18 removed them): send each message on its own line"
        ids = [item["id"] for item in items if isinstance(item, dict) and "method" in item and valid_id(item.get("id"))]
        for msg_id in ids or [None]:
            verdict.answer.append(error_response(msg_id, INVALID_REQUEST, message, "batch"))
        self.refused += 1

    def _message(self, value: Any, verdict: Verdict) -> None:
        params = value.get("params") if isinstance(value, dict) else None
        request_id = params.get("requestId") if isinstance(params, dict) else None
        env = classify(value)  # the sidecar's envelope rules; params, result and error made encodable, in place
        if request_id is not None:
            params["requestId"] = request_id  # a cancellation names its request exactly as sent
        if isinstance(env, Request | Notification) and isinstance(env.params, list):  # MCP params are an object
            env = Invalid(getattr(env, "id", None), invalid('"params" must be an object, not an array', "bad params"))
        if isinstance(value, dict) and "method" not in value:
            self._response(value, verdict)
        elif isinstance(env, Invalid) and isinstance(value, dict) and "id" not in value:  # a notification: no answer
            log.info("notification dropped: %s", env.error.message)
        elif isinstance(env, Invalid):
            details = dict(env.error.details)
            reason = details.pop("reason")
            verdict.answer.append(error_response(env.id, env.error.code, env.error.message,
                                                 _REASONS.get(reason, reason.replace(" ", "_")), **details))
        else:
            body = {"method": env.method, **({} if env.params is None else {"params": env.params})}
            if isinstance(env, Request):
                self._request(env.id, body, verdict)
            else:
                self._notification(value, body, verdict)
        if verdict.answer:
            self.refused += 1

    def _request(self, msg_id: MsgId, body: dict[str, Any], verdict: Verdict) -> None:
        method = body["method"]

        def refuse(code: int, message: str, reason: str, **details: Any) -> None:
            verdict.answer.append(error_response(msg_id, code, message, reason, **details))

        if method not in REQUESTS:
            return refuse(METHOD_NOT_FOUND, f"no request named {method!r}", "unknown_method", method=method)
        if method not in _ALWAYS and not self.initialized:
            return refuse(SERVER_NOT_INITIALIZED, f"{method} before notifications/initialized: initialize first",
                          "not_initialized")
        if msg_id in self.in_flight:
            return refuse(INVALID_REQUEST, f"request id {msg_id!r} is still in flight", "duplicate_id")
        try:
            REQUESTS[method].model_validate(body)
        except ValidationError as exc:
            err = from_pydantic(exc, f"params of {method}")
            return refuse(types.INVALID_PARAMS, err.message[:2000], "bad_params", **err.details)
        self.in_flight.add(msg_id)
        verdict.forward.append(types.JSONRPCMessage(types.JSONRPCRequest(jsonrpc="2.0", id=msg_id, **body)))

    def _notification(self, value: dict[str, Any], body: dict[str, Any], verdict: Verdict) -> None:
        method = body["method"]
        model = NOTIFICATIONS.get(method)
        if model is None:
            log.info("notification %r dropped: no such notification", method[:100])
            return
        try:
            model.model_validate(body)
        except ValidationError as exc:
            log.info("notification %s dropped: %s", method, from_pydantic(exc, "params").message[:500])
            return
        if method == "notifications/initialized":
            self.initialized = True
        verdict.forward.append(types.JSONRPCMessage.model_validate(value))

    def _response(self, value: dict[str, Any], verdict: Verdict) -> None:
        msg_id = value.get("id")
        if not valid_id(msg_id) or value.get("jsonrpc") != "2.0":
            log.info("a response without a valid id or jsonrpc member was dropped")
            return
        if isinstance(msg_id, str) and msg_id.isdecimal() and len(msg_id) < 20:
            msg_id = int(msg_id)  # the SDK matches "7" to its request 7, as the TypeScript SDK does
        if msg_id not in self.asking:
            log.debug("a response to %r was dropped: the server asked nothing by that id (or no longer waits)",
                     str(msg_id)[:40])
            return
        self.asking.discard(msg_id)
        try:
            verdict.forward.append(types.JSONRPCMessage.model_validate(value))
            return
        except ValidationError:
            pass
        if "result" in value and "error" not in value:
            what = f"its result is {type(value['result']).__name__}, not an object"
        else:
            what = "it needs exactly one of result (an object) or error ({code, message})"
        message = f"the client's response to request {msg_id!r} is malformed: {what}"
        log.info("%s", message)
        error = error_response(msg_id, INVALID_REQUEST, message, MALFORMED_RESPONSE)
        verdict.forward.append(types.JSONRPCMessage.model_validate(error))
