"""The one error shape of the protocol: ``{code: validation|permission|internal, message, details}``.

Every failed request answers with a JSON-RPC error whose ``data`` is an :class:`ErrorData`. Domain code raises
:class:`council.errors.CouncilError`; :func:`error_data` and :data:`JSONRPC_CODES` are the only mapping to the wire.
"""

from __future__ import annotations

from typing import Any

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


def error_data(err: CouncilError) -> ErrorData:
    return ErrorData(code=err.code, message=err.message, details=err.details)
