"""The guard in front of the MCP SDK's session: each line a client writes is checked here, and only messages the SDK
can serve reach it; everything else is answered here (the README's "As tools: MCP and agents", Errors), with the
contract's ``data`` and ``details.reason``. Why: the SDK's stdio reader drops a line it cannot validate (not JSON, a
batch, too deep, a response whose ``result`` is not an object …) and its client never gets an answer.

:class:`Guard` is sans-IO (``receive(line)`` → what to forward, what to answer). A malformed notification, or a
malformed response to nothing the server asked (:meth:`Guard.asked`), is dropped (logged); a malformed answer to one
it asked — a line that is not JSON, or too long, included, when its id can be read — reaches the SDK as an error
response (``malformed_response``), so the request waiting for it ends. A request the server withdraws
(:meth:`Guard.withdrawn`) ends the same way (``withdrawn``), and a reply that comes after is dropped. Lone
surrogates become U+FFFD, except in ids and methods, kept exactly so the answer matches the request.
Beyond the README's list: an id still in flight → -32600 (``duplicate_id``); a notification's method sent with an id →
-32601; bad params → -32602 with one ``details.fields`` entry per bad field, a 2026-07-28 request's envelope
(``_meta``'s client info, capabilities, log level) included: checked here against that revision's own types, which the
SDK checks with a frozen "Invalid request parameters" and no field named (:func:`envelope_errors`).
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
from mcp.shared.exceptions import MCPError
from mcp.types.methods import SPEC_CLIENT_METHODS, validate_client_request
from pydantic import BaseModel, ValidationError

from council.errors import from_pydantic
from council.protocol.constants import INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, SERVER_NOT_INITIALIZED
from council.transport.framing import decode_json
from council.transport.jsonrpc import Invalid, MsgId, Notification, Request, classify, invalid, valid_id

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 16 * 1024 * 1024  # the largest message read (16 MiB, as the sidecar); longer lines are refused
MAX_DEPTH = 64  # arrays and objects inside each other; tool arguments need a handful, the SDK's parser fails ~200
ID_SCAN_BYTES = 64 * 1024  # how much of a refused line is searched for its id (and kept of an overlong one)
MALFORMED_RESPONSE = "malformed_response"  # details.reason of the error that ends a request the client answered badly
WITHDRAWN = "withdrawn"  # … of the error that ends a request the server cancelled (its deadline passed, or its call)
REQUEST_WITHDRAWN = -32001  # that error's code: the SDKs' "request timed out"

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING)
_TOKEN = re.compile(_STRING + rb"|[\[\]{}:,]|-?[0-9][0-9.eE+-]*|true|false|null")
_OPEN_CLOSE = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_REASONS = {"not JSON-RPC 2.0": "not_jsonrpc"}  # the sidecar's reasons, spelled as MCP's (else " " → "_")
_ALWAYS = frozenset({"initialize", "ping"})  # the requests served before notifications/initialized (and
# every request of a 2026-07-28 client, :func:`modern`)


def _methods(union: Any) -> dict[str, type[BaseModel]]:
    """``{method: model}`` for the request (or notification) models of one of the SDK's unions."""
    return {model.model_fields["method"].default: model for model in typing.get_args(union)}


def as_message(value: dict[str, Any]) -> types.JSONRPCMessage:
    """``value`` as the SDK's JSON-RPC message model (a request, a notification, a response or an error)."""
    return types.jsonrpc_message_adapter.validate_python(value)


class UpdateTaskParams(types.RequestParams):
    """``tasks/update`` of the Tasks extension (2026-07-28): the task, and responses to its open input requests (each
    read as its request's result where it is taken, :mod:`council.mcpserver.ext_tasks`)."""

    task_id: str
    input_responses: dict[str, Any]


class UpdateTaskRequest(types.Request[UpdateTaskParams, typing.Literal["tasks/update"]]):
    method: typing.Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams


REQUESTS = _methods(types.ClientRequest | types.GetTaskRequest | types.GetTaskPayloadRequest | types.CancelTaskRequest
                    | types.ListTasksRequest  # MCP tasks (2025-11-25): the SDK 2.x serves none, council mcp does
                    | UpdateTaskRequest)  # and the Tasks extension's update (2026-07-28)
NOTIFICATIONS = _methods(types.ClientNotification)


def modern(params: Any) -> bool:
    """Whether a request carries the MCP 2026-07-28 envelope (``_meta``'s protocol version): such a client sends
    no ``initialize``, each request says who it is."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and types.PROTOCOL_VERSION_META_KEY in meta


def envelope_errors(method: str, params: Any) -> ValidationError | None:
    """What is wrong with a 2026-07-28 request by that revision's own types (its ``_meta`` envelope included), or
    None: fine, not a 2026-07-28 request, or a version or method that revision does not know (the SDK answers
    those itself)."""
    if not modern(params):
        return None
    version = params["_meta"][types.PROTOCOL_VERSION_META_KEY]
    try:
        validate_client_request(method, version, params)
    except ValidationError as exc:
        return exc
    except (KeyError, ValueError, TypeError):  # not a method or version of the SDK's tables
        return None
    return None


def removed(method: str, params: Any) -> bool:
    """Whether a 2026-07-28 request names a method of MCP that its revision removed (``initialize``, ``ping``,
    ``logging/setLevel``, ``resources/subscribe`` …, by the SDK's table): refused -32601 before its params are read,
    as the spec (SEP-2575) and the SDK say, not as the older revision's params (-32602)."""
    if not modern(params) or method not in SPEC_CLIENT_METHODS:
        return False
    try:
        validate_client_request(method, params["_meta"][types.PROTOCOL_VERSION_META_KEY], {})
    except KeyError:  # a known version without this method
        return True
    except (ValueError, TypeError):  # an unknown version (the SDK answers it), or params the method would refuse
        return False
    return False


def refused_data(message: str, reason: str, **details: Any) -> dict[str, Any]:
    """A refusal's JSON-RPC ``data``: the contract's ``{code: validation, message, details}``, the reason first."""
    return {"code": "validation", "message": message, "details": {"reason": reason, **details}}


def refusal(code: int, message: str, reason: str, **details: Any) -> MCPError:
    """A request refused (raised in a handler), with :func:`refused_data`."""
    return MCPError(code, message, refused_data(message, reason, **details))


def error_response(msg_id: MsgId | None, code: int, message: str, reason: str, **details: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id,
            "error": {"code": code, "message": message, "data": refused_data(message, reason, **details)}}


def nesting_depth(line: bytes) -> int:
    """How deep arrays and objects nest in ``line`` (brackets inside strings do not count); linear, no recursion."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return 0 if not (b"[" in line or b"{" in line) else 1  # cannot exceed the limit: exactness not needed
    brackets = _STRINGS.sub(b'""', line).translate(_OPEN_CLOSE, _NOT_BRACKETS)
    return max(accumulate(memoryview(brackets).cast("b")), default=0)


def readable_id(line: bytes) -> MsgId | None:
    """The top-level ``"id"`` of a message that could not be parsed, when its bytes still show it (else None)."""
    return readable_head(line).id


@dataclass(frozen=True)
class Head:
    """What the first bytes of a line that could not be parsed still show: its top-level ``id`` and keys."""

    id: MsgId | None
    keys: frozenset[str]

    @property
    def reply(self) -> bool:
        """Whether it reads as a response (a ``result`` or an ``error``, no ``method``)."""
        return "method" not in self.keys and bool({"result", "error"} & self.keys)


def readable_head(line: bytes) -> Head:
    """The top-level ``id`` (when its value is readable) and keys of the first :data:`ID_SCAN_BYTES` of ``line``."""
    depth, msg_id, keys = 0, None, set()
    string: bytes | None = None  # a string at the top level: a key when a colon follows
    value_of: bytes | None = None  # the key whose value comes next
    for m in _TOKEN.finditer(line[:ID_SCAN_BYTES]):
        token = m.group()
        if value_of is not None:
            if value_of == b'"id"':
                msg_id = _id_value(token)
            value_of = None
        elif string is not None and token == b":":
            key = _id_value(string)
            if isinstance(key, str):
                keys.add(key)
            value_of, string = string, None
            continue
        string = None
        if token in (b"[", b"{"):
            depth += 1
        elif token in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and token.startswith(b'"'):
            string = token
    return Head(msg_id, frozenset(keys))


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
    refused: bool = False  # the line could not be read


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
        if verdict.refused:
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
        verdict = Verdict()
        message = f"the message is longer than {MAX_LINE_BYTES} bytes"
        self._unreadable(readable_head(head), verdict, message, "too_long", limit=MAX_LINE_BYTES)
        return verdict

    def answered(self, msg_id: Any) -> None:
        """The server wrote a response (or an error) with this id."""
        self.in_flight.discard(msg_id)

    def asked(self, msg_id: Any) -> None:
        """The server wrote a request of its own with this id (an elicitation, a ping)."""
        self.asking.add(msg_id)

    def withdrawn(self, msg_id: Any, reason: str) -> types.JSONRPCMessage | None:
        """The server cancelled its request ``msg_id`` (``notifications/cancelled``): the error that ends the SDK's
        wait for it (``details.reason`` ``withdrawn``), when it still waits; a reply that comes later is dropped."""
        if not valid_id(msg_id) or msg_id not in self.asking:
            return None
        self.asking.discard(msg_id)
        message = f"request {msg_id!r} was withdrawn: {reason}"
        return as_message(error_response(msg_id, REQUEST_WITHDRAWN, message, WITHDRAWN))

    def _their_reply(self, msg_id: Any) -> MsgId | None:
        """``msg_id`` as the id of a request the server waits on (``"7"`` is 7, as the SDKs match it), or None."""
        if isinstance(msg_id, str) and msg_id.isdecimal() and len(msg_id) < 20:
            msg_id = int(msg_id)
        return msg_id if valid_id(msg_id) and msg_id in self.asking else None

    def _fail(self, msg_id: MsgId, what: str, verdict: Verdict) -> None:
        """The client's reply to request ``msg_id`` is unusable: that request ends with an error saying why."""
        self.asking.discard(msg_id)
        message = f"the client's response to request {msg_id!r} is malformed: {what}"
        log.info("%s", message)
        error = error_response(msg_id, INVALID_REQUEST, message, MALFORMED_RESPONSE, problem=what)
        verdict.forward.append(as_message(error))

    def _unreadable(self, head: Head, verdict: Verdict, message: str, reason: str, **details: Any) -> None:
        """A line that could not be read: a reply fails the request it answers (when its id shows which; else
        that request ends by its deadline); anything else is refused (-32700, with its id when readable)."""
        if not head.reply:
            verdict.answer.append(error_response(head.id, PARSE_ERROR, message, reason, **details))
            return
        msg_id = self._their_reply(head.id)
        if msg_id is None:
            log.info("a response that could not be read was dropped (%s): its id is not one the server waits on",
                     reason)
            return
        self._fail(msg_id, message, verdict)

    def _parse(self, line: bytes, verdict: Verdict) -> Any:
        def refuse(message: str, reason: str, **details: Any) -> None:
            self._unreadable(readable_head(line), verdict, message, reason, **details)
            verdict.refused = True

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
        if removed(method, body.get("params")):
            version = body["params"]["_meta"][types.PROTOCOL_VERSION_META_KEY]
            return refuse(METHOD_NOT_FOUND, f"MCP {version} has no request named {method!r}", "unknown_method",
                          method=method)
        if method not in _ALWAYS and not self.initialized and not modern(body.get("params")):
            return refuse(SERVER_NOT_INITIALIZED, f"{method} before notifications/initialized: initialize first",
                          "not_initialized")
        if msg_id in self.in_flight:
            return refuse(INVALID_REQUEST, f"request id {msg_id!r} is still in flight", "duplicate_id")
        try:
            REQUESTS[method].model_validate(body)
            if (wrong := envelope_errors(method, body.get("params"))) is not None:
                raise wrong
        except ValidationError as exc:
            err = from_pydantic(exc, f"params of {method}")
            return refuse(types.INVALID_PARAMS, err.message[:2000], "bad_params", **err.details)
        self.in_flight.add(msg_id)
        verdict.forward.append(types.JSONRPCRequest(jsonrpc="2.0", id=msg_id, **body))

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
        verdict.forward.append(as_message(value))

    def _response(self, value: dict[str, Any], verdict: Verdict) -> None:
        msg_id = self._their_reply(value.get("id"))
        if msg_id is None:
            log.debug("a response to %r was dropped: the server asked nothing by that id (or no longer waits)",
                      str(value.get("id"))[:40])
            return
        self.asking.discard(msg_id)
        if value.get("jsonrpc") == "2.0" and ("result" in value) != ("error" in value):
            try:
                verdict.forward.append(as_message({**value, "id": msg_id}))
                return
            except ValidationError:
                pass
        if value.get("jsonrpc") != "2.0":
            what = 'its "jsonrpc" is not "2.0"'
        elif "result" in value and "error" not in value:
            what = f"its result is {type(value['result']).__name__}, not an object"
        else:
            what = "it needs exactly one of result (an object) or error ({code, message})"
        self._fail(msg_id, what, verdict)
