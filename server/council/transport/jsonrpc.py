"""JSON-RPC 2.0 envelopes: classify one decoded frame as a request, a notification or a response, or refuse it
(:class:`Invalid`, never run), by docs/protocol.md's "Messages"; both the sidecar's gate and ``council mcp``'s guard
use it. :class:`RpcError` is every error the sidecar sends (``data`` in the contract's shape); it is a plain
exception, so this module loads without pygls (``council.transport.pygls_adapter`` has the subclass pygls answers
with).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from council.encodable import encodable_value
from council.errors import CouncilError, ErrorCode
from council.protocol.constants import INVALID_REQUEST, JSONRPC_CODES

MsgId = int | str


class RpcError(Exception):
    """A JSON-RPC error to answer with; ``data`` always has the contract's shape, its text in ``language`` (None:
    English), built when first read."""

    def __init__(self, code: int, message: str, kind: ErrorCode = ErrorCode.VALIDATION, /, **details: Any) -> None:
        # positional-only: a detail may itself be named `kind` (a provider problem's kind)
        Exception.__init__(self, message)  # not super(): pygls's JsonRpcException (HandlerError's) would set data None
        self.code, self.message, self.kind, self.details = code, message, kind, details
        self.language: str | None = None

    @classmethod
    def from_council(cls, err: CouncilError) -> RpcError:
        rpc = cls(JSONRPC_CODES[err.code], err.message, err.code, **err.details)
        rpc.language = err.language  # the text in the session's language
        return rpc

    @cached_property
    def data(self) -> dict[str, Any]:
        return contract_data(self.kind, self.message, self.details, self.language)

    def to_wire(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "data": self.data}


def contract_data(
    kind: ErrorCode, message: str, details: dict[str, Any], language: str | None = None
) -> dict[str, Any]:
    """``{code, message, details, text}``: the text a person or an agent reads comes from
    :mod:`council.present.errors`, in ``language`` (None: English); details that are not JSON are dropped (the error
    itself still goes). Both are imported on the first error, not before ``initialize`` is answered."""
    from council.present.errors import error_text
    from council.protocol.errors import ErrorData

    try:
        text = error_text(kind.value, message, details, language)
        wire = ErrorData(code=kind, message=message, details=details, text=text).to_wire()
        json.dumps(wire, allow_nan=False)
    except (TypeError, ValueError):  # pydantic's serialization error is a ValueError
        return contract_data(kind, message, {"detailsDropped": True}, language)
    return wire


@dataclass(frozen=True)
class Request:
    id: MsgId
    method: str
    params: Any = None


@dataclass(frozen=True)
class Notification:
    method: str
    params: Any = None


@dataclass(frozen=True)
class Response:
    """``error``, when present, is normalised: ``{"code": int, "message": str}`` plus ``data`` when sent."""

    id: MsgId
    result: Any = None
    error: dict[str, Any] | None = None


@dataclass(frozen=True)
class Invalid:
    """Refused before anything runs; answered with ``error`` under ``id`` (None: id null)."""

    id: MsgId | None
    error: RpcError


@dataclass(frozen=True)
class Dropped:
    """Not answerable (a response without a valid id): logged and dropped."""

    reason: str


Envelope = Request | Notification | Response | Invalid | Dropped


def valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def invalid(message: str, reason: str, **details: Any) -> RpcError:
    return RpcError(INVALID_REQUEST, message, reason=reason, **details)


def classify(value: Any) -> Envelope | list[Invalid]:
    if isinstance(value, list):
        return _batch(value)
    if not isinstance(value, dict):
        return Invalid(None, invalid(f"a message must be a JSON object, not {_json_type(value)}", "not an object"))
    has_id = "id" in value
    msg_id = value.get("id")
    reply_id = msg_id if valid_id(msg_id) else None
    if value.get("jsonrpc") != "2.0":
        return Invalid(reply_id, invalid('"jsonrpc" must be "2.0"', "not JSON-RPC 2.0"))
    if "method" not in value:
        return _response(value, msg_id)
    method = value["method"]
    if has_id and reply_id is None:
        return Invalid(None, invalid(f"a request id must be a string or an integer, not {_json_type(msg_id)}",
                                     "bad id"))
    if not isinstance(method, str) or not method:
        return Invalid(reply_id, invalid(f'"method" must be a non-empty string, not {_json_type(method)}',
                                         "bad method"))
    params = value.get("params")
    if params is not None and not isinstance(params, (dict, list)):
        return Invalid(reply_id, invalid(f'"params" must be an object or an array, not {_json_type(params)}',
                                         "bad params", method=method))
    params = encodable_value(params)
    if has_id:
        return Request(msg_id, method, params)
    return Notification(method, params)


def _response(value: dict[str, Any], msg_id: Any) -> Envelope:
    if "result" not in value and "error" not in value:
        return Invalid(None, invalid("a message needs a method (request, notification) or a result or an error "
                                     "(response)", "no method"))
    if not valid_id(msg_id):
        return Dropped(f"a response with id {_json_type(msg_id)}")
    error = encodable_value(value.get("error"))
    if error is None:
        return Response(msg_id, encodable_value(value.get("result")))
    if not isinstance(error, dict):
        return Response(msg_id, error={"code": 0, "message": f"malformed error: {str(error)[:200]}"})
    code = error.get("code")
    normal = {"code": code if isinstance(code, int) and not isinstance(code, bool) else 0,
              "message": str(error.get("message", ""))[:2000]}
    return Response(msg_id, error={**normal, "data": error["data"]} if "data" in error else normal)


def _batch(items: list[Any]) -> list[Invalid]:
    """One -32600 per element that expects an answer: a request with its id, an invalid element (a bad id, not an
    object …) with its own error; notifications and responses get none. A batch with no such element gets one."""
    error = invalid("batches are not supported: send each message in its own frame", "batch")
    answers: list[Invalid] = []
    for item in items:
        envelope = classify(item) if isinstance(item, dict) else Invalid(None, error)
        if isinstance(envelope, Request):
            answers.append(Invalid(envelope.id, error))
        elif isinstance(envelope, Invalid):
            answers.append(envelope)
    return answers or [Invalid(None, error)]


_JSON_TYPES = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "a string",
               list: "an array"}


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "an object")  # a decoded JSON value: exactly one of these types, or a dict
