"""The seam between the gate and pygls, and the one statement of how the sidecar uses pygls (checked on 2.1.1).

Only pygls's public API is used: ``LanguageServer`` with ``converter_factory``, ``@server.feature``,
``report_server_error``, and on its protocol ``set_writer``, ``structure_message``, ``handle_message``, ``notify``,
``send_request`` and ``fm.features``. What pygls does not offer, and how the sidecar does it instead:

- pygls's reader (``pygls.io_``) is lenient (it skips junk), never resynchronises, has no size limit, takes NaN and
  cannot answer a frame it could not read. It is not used: ``council.transport`` frames and checks the input and
  hands pygls one checked message at a time (``structure_message`` + ``handle_message``, as pygls's own loops do).
- pygls answers a cancelled request (-32800) and an exception it caught (-32603, a traceback as data) without the
  contract's ``{code, message, details}``, and has no hook for responses. The sidecar's writer (``set_writer``)
  reads every message pygls sends: :func:`contract_error` gives pygls's errors the contract's data, and the gate
  hears each response (in-flight ids, the end of ``initialize`` and ``shutdown``).
- pygls always advertises text-document sync (its built-in document features): :func:`raw_converter` writes the
  ``initialize`` result with no capabilities, since the sidecar serves no documents. ``council serve`` answers
  ``initialize`` in the gate before pygls is imported; pygls then runs its own ``initialize`` (client capabilities,
  process id, workspace) and the gate does not send that second answer.
- A handler's error must be a pygls ``JsonRpcException`` for pygls to answer with it: :class:`HandlerError` is the
  transport's :class:`~council.transport.jsonrpc.RpcError` as one (``RpcError`` itself stays free of pygls).
- pygls cannot cancel a request it sent: ``council.server`` sends ``$/cancelRequest`` itself and leaves pygls's
  future to the client's answer (cancelling it would make a late answer raise ``InvalidStateError``).
- pygls's ``exit`` calls ``sys.exit``: the gate never hands it over, closes the output and returns LSP's code itself.
- Field details for LSP params pygls cannot structure come from the cattrs error its ``JsonRpcInvalidParams`` is
  raised from (``__cause__``); without one the refusal still goes, without fields.
"""

from __future__ import annotations

import logging
from typing import Any

import attrs
import cattrs
from cattrs import Converter
from lsprotocol import types
from pydantic.alias_generators import to_camel
from pygls import protocol as pygls_protocol
from pygls.exceptions import JsonRpcException

from council.errors import ErrorCode
from council.protocol.constants import INVALID_REQUEST, JSONRPC_CODES, METHOD_NOT_FOUND, REQUEST_CANCELLED
from council.transport.jsonrpc import MsgId, RpcError, invalid

log = logging.getLogger(__name__)

_GENERIC = (pygls_protocol.JsonRPCRequestMessage, pygls_protocol.JsonRPCNotification,
            pygls_protocol.JsonRPCResponseMessage)


class HandlerError(RpcError, JsonRpcException):
    """An :class:`RpcError` a handler raises: pygls answers with its code, message and contract data."""


def raw_converter() -> Converter:
    """pygls's converter, except that custom (non-LSP) messages keep ``params``/``result`` as plain JSON and the
    ``initialize`` result advertises no capabilities.

    pygls's default turns custom params into namedtuples (non-identifier keys renamed ``_0``…); here the message's
    own fields are set as they are, and unstructured without copying them."""
    converter = pygls_protocol.default_converter()
    for cls in _GENERIC:
        converter.register_structure_hook(cls, lambda obj, cls: cls(**obj))
        converter.register_unstructure_hook(cls, lambda message: attrs.asdict(message, recurse=False))
    converter.register_unstructure_hook(types.InitializeResult, lambda result: {
        "capabilities": {}, "serverInfo": converter.unstructure(result.server_info)})
    return converter


def structure(protocol: pygls_protocol.JsonRPCProtocol, message: dict[str, Any]) -> Any:
    """pygls's message object for one checked top-level message (params of custom methods stay plain JSON).

    LSP params pygls cannot structure raise :class:`RpcError` -32602 with ``details.fields``."""
    try:
        return protocol.structure_message(message)
    except JsonRpcException as exc:
        cause = exc.__cause__
        if not isinstance(cause, cattrs.BaseValidationError):
            raise invalid(f"the message could not be read: {exc.message}", "unreadable") from None
        fields: dict[str, str] = {}
        for line in cattrs.transform_error(cause):
            problem, _, path = line.rpartition(" @ $.")
            camel = ".".join(to_camel(part) for part in path.removeprefix("params.").split("."))
            fields[camel] = problem or line
        raise RpcError(exc.code, f"invalid params for {message.get('method')}", reason="invalid params",
                       fields=fields) from None


# pygls's own errors (its message kept): contract kind and details.reason
_PYGLS_ERRORS: dict[int, tuple[ErrorCode, str]] = {
    REQUEST_CANCELLED: (ErrorCode.VALIDATION, "cancelled"),
    METHOD_NOT_FOUND: (ErrorCode.VALIDATION, "unknown method"),
    INVALID_REQUEST: (ErrorCode.VALIDATION, "invalid request"),
    JSONRPC_CODES[ErrorCode.VALIDATION]: (ErrorCode.VALIDATION, "invalid params"),
}


def contract_error(msg_id: MsgId, error: dict[str, Any]) -> dict[str, Any]:
    """The ``error`` of a response pygls sent, with the contract's data. A traceback (an exception pygls caught
    itself) goes to stderr, never to the client."""
    data = error.get("data")
    if isinstance(data, dict) and data.keys() - {"text"} == {"code", "message", "details"}:
        return error  # an RpcError a handler raised
    if isinstance(data, dict) and isinstance(data.get("traceback"), list):  # pygls's own log record is filtered
        log.error("request %r failed: %s\n%s", msg_id, error.get("message"), "".join(map(str, data["traceback"])))
    code = error.get("code")
    kind, reason = _PYGLS_ERRORS.get(code, (ErrorCode.INTERNAL, ""))  # type: ignore[arg-type]
    details: dict[str, Any] = {"reason": reason, "id": msg_id} if reason else {}
    message = str(error.get("message") or "request failed").strip()[:2000]
    return RpcError(code if isinstance(code, int) else JSONRPC_CODES[kind], message, kind, **details).to_wire()
