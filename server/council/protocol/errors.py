"""The one error shape of the protocol: ``{code: validation|permission|internal, message, details}``.

Every failed request answers with a JSON-RPC error whose ``data`` is an :class:`ErrorData`. Domain code raises
:class:`council.errors.CouncilError`; :func:`error_data` and :data:`JSONRPC_CODES` are the only mapping to the wire.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from council.camel import CamelModel
from council.errors import CouncilError, ErrorCode

# JSON-RPC numeric codes used for each kind (the string code in ``data.code`` is the contract).
JSONRPC_CODES: dict[ErrorCode, int] = {
    ErrorCode.VALIDATION: -32602,  # Invalid params
    ErrorCode.PERMISSION: -32001,
    ErrorCode.INTERNAL: -32603,  # Internal error
}


class ErrorData(CamelModel):
    """The ``data`` member of every JSON-RPC error the sidecar sends."""

    code: ErrorCode
    message: str
    details: dict[str, Any] = {}
    text: str | None = Field(None, description="What a person or an agent reads: what failed, why and what to do "
                                               "next (the sidecar's JSON-RPC errors always carry it; a client's own "
                                               "errors may omit it). The VS Code agent tools return it to the agent.")


def error_data(err: CouncilError) -> ErrorData:
    return ErrorData(code=err.code, message=err.message, details=err.details)


# JSON-RPC codes of the transport itself. Their ``data.code`` is always ``validation``: the client sent something
# the sidecar cannot or will not serve; ``details.reason`` says what.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800

TRANSPORT_ERRORS: dict[int, str] = {
    PARSE_ERROR: "unreadable bytes: no header where one must start, a bad `Content-Length`, a body that is not "
                 "UTF-8 JSON (id null)",
    INVALID_REQUEST: "readable but not servable: not a JSON-RPC 2.0 request object, a bad `id`/`method`/`params`, "
                     "a body over the size limit, a wrong `Content-Length`, a batch, a duplicate id in flight, "
                     "`initialize` twice, any request after `shutdown`",
    METHOD_NOT_FOUND: "no request by that name (also a notification method such as `initialized` sent with an id)",
    SERVER_NOT_INITIALIZED: "a request before `initialize` succeeded",
    REQUEST_CANCELLED: "the client cancelled the request with `$/cancelRequest` (`details.reason`: `cancelled`)",
}
