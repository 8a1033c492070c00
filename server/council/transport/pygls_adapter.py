"""The seam between the gate and pygls: the one module that relies on pygls internals.

Checked against pygls 2.1.1 (``pyproject.toml`` pins ``pygls>=2.1,<2.2``). pygls's own reader (``pygls.io_``) is
never used: the gate hands over one checked message at a time. Public pygls API used: ``structure_message``,
``handle_message``, ``set_writer``, ``notify``, ``send_request_async``, ``fm.features``, ``lsp_method`` and the
``converter_factory`` argument. Internals, all here:

- ``_send_response`` is overridden: every error pygls builds itself (a cancelled request's -32800, an exception it
  caught as -32603 with a traceback as data) gets the contract's ``{code, message, details}`` instead, and the gate
  hears about every response (in-flight ids, the end of ``initialize`` and ``shutdown``).
- ``_request_futures`` / ``_result_types``: :meth:`GatedProtocol.forget_request` drops one of the sidecar's own
  requests when it is cancelled, so a late reply is an unknown id instead of ``InvalidStateError``.
- ``lsp_initialize`` (a builtin feature) is wrapped so the result advertises no LSP capabilities (the gate answers
  ``initialize`` itself before pygls is imported, and :meth:`GatedProtocol.initialize_quietly` runs pygls's own
  afterwards with its answer kept back); ``lsp_exit``
  ends with ``sys.exit(0 if shutdown else 1)`` after closing the writer: :meth:`GatedProtocol.run_exit` returns
  that code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import Any

import attrs
import cattrs
from cattrs import Converter
from lsprotocol import types
from pydantic.alias_generators import to_camel
from pygls.exceptions import JsonRpcException
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
    lsp_method,
)

from council.errors import ErrorCode
from council.protocol.constants import INVALID_REQUEST, JSONRPC_CODES, METHOD_NOT_FOUND, REQUEST_CANCELLED
from council.transport.jsonrpc import MsgId, RpcError, invalid, is_error_data

log = logging.getLogger(__name__)

_GENERIC = (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage)


class HandlerError(RpcError, JsonRpcException):
    """An :class:`RpcError` a handler raises: pygls answers with it (``to_response_error``)."""

    def to_response_error(self) -> types.ResponseError:
        """What pygls sends when a handler raises this."""
        wire = self.to_wire()
        return types.ResponseError(code=wire["code"], message=wire["message"], data=wire["data"])


# pygls's own errors (its message kept): contract kind and details.reason
_PYGLS_ERRORS: dict[int, tuple[ErrorCode, str]] = {
    REQUEST_CANCELLED: (ErrorCode.VALIDATION, "cancelled"),
    METHOD_NOT_FOUND: (ErrorCode.VALIDATION, "unknown method"),
    INVALID_REQUEST: (ErrorCode.VALIDATION, "invalid request"),
    JSONRPC_CODES[ErrorCode.VALIDATION]: (ErrorCode.VALIDATION, "invalid params"),
}


def with_contract_data(msg_id: MsgId, error: types.ResponseError) -> types.ResponseError:
    """``error`` with the contract's data: pygls answers a cancelled request (-32800) and an exception it caught
    itself (-32603, data: a traceback) without it. A traceback never goes to the client."""
    if is_error_data(error.data):
        return error
    kind, reason = _PYGLS_ERRORS.get(error.code, (ErrorCode.INTERNAL, ""))
    details: dict[str, Any] = {"reason": reason, "id": msg_id} if reason else {}
    message = str(error.message or "request failed").strip()[:2000]
    return HandlerError(error.code, message, kind, **details).to_response_error()


def raw_converter() -> Converter:
    """pygls's converter, except that custom (non-LSP) messages keep ``params``/``result`` as plain JSON.

    pygls's default turns them into namedtuples (non-identifier keys renamed ``_0``…); here the message's own
    fields are set as they are, and unstructured without copying them."""
    converter = default_converter()
    for cls in _GENERIC:
        converter.register_structure_hook(cls, lambda obj, cls: cls(**obj))
        converter.register_unstructure_hook(cls, lambda message: attrs.asdict(message, recurse=False))
    return converter


class GatedProtocol(LanguageServerProtocol):
    """pygls's LSP protocol, fed by the gate: contract error data, response hooks, an exit that returns its code."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_response: Callable[[MsgId, bool], None] = lambda _msg_id, _ok: None
        self._muted: set[MsgId] = set()  # requests whose answer is kept back (the gate answered them already)

    def structure(self, message: dict[str, Any]) -> Any:
        """pygls's message object for one checked top-level message (params of custom methods stay plain JSON).

        LSP params pygls cannot structure raise :class:`RpcError` -32602 with ``details.fields``."""
        try:
            return self.structure_message(message)
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

    def _send_response(self, msg_id: MsgId, result: Any = None, error: types.ResponseError | None = None) -> None:
        if msg_id in self._muted:
            self._muted.discard(msg_id)
            if error is not None:
                log.warning("pygls's own initialize failed after the gate answered it: %s", error.message)
            return
        if error is not None:
            tb = error.data.get("traceback") if isinstance(error.data, dict) else None
            if isinstance(tb, list):  # pygls caught an exception itself; its own log record is filtered (params)
                log.error("request %r failed: %s\n%s", msg_id, error.message, "".join(map(str, tb)))
            error = with_contract_data(msg_id, error)
        super()._send_response(msg_id, result, error)
        self.on_response(msg_id, error is None)

    def initialize_quietly(self, message: dict[str, Any]) -> None:
        """Run pygls's ``initialize`` (client capabilities, process id, workspace) for a request the gate has
        answered already: pygls's own answer is not sent."""
        self._muted.add(message["id"])
        self.handle_message(self.structure(message))

    def forget_request(self, msg_id: MsgId) -> None:
        """Forget one of the sidecar's own requests (it was cancelled): a late reply is then an unknown id."""
        self._request_futures.pop(msg_id, None)
        self._result_types.pop(msg_id, None)

    def run_exit(self) -> int:
        """pygls's ``exit``: it closes the writer and exits with 0 after ``shutdown``, else 1; returns that code."""
        try:
            self.handle_message(self.structure_message({"jsonrpc": "2.0", "method": types.EXIT}))
        except SystemExit as done:
            return done.code if isinstance(done.code, int) else 1
        return 0 if self._shutdown else 1  # pygls did not exit (not the case in 2.1.x)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's ``initialize`` (client capabilities, process id, workspace, a user handler if any), answered with
        no LSP capabilities: the sidecar serves no documents, only its own ``council/*`` methods."""
        result = yield from super().lsp_initialize(params)
        return types.InitializeResult(capabilities=types.ServerCapabilities(), server_info=result.server_info)
