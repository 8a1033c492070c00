"""The one error shape of the protocol: ``{code: validation|permission|internal, message, details}``.

Every failed request answers with a JSON-RPC error whose ``data`` is an :class:`ErrorData`. Domain code raises
:class:`CouncilError`; the server turns it into the JSON-RPC error and keeps serving.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import ValidationError

from council.protocol.wire import WireModel


class ErrorCode(str, Enum):
    """What kind of failure: the caller's input, a refused permission, or a fault of ours."""

    VALIDATION = "validation"
    PERMISSION = "permission"
    INTERNAL = "internal"


# JSON-RPC numeric codes used for each kind (the string code in ``data.code`` is the contract).
JSONRPC_CODES: dict[ErrorCode, int] = {
    ErrorCode.VALIDATION: -32602,  # Invalid params
    ErrorCode.PERMISSION: -32001,
    ErrorCode.INTERNAL: -32603,  # Internal error
}


class ErrorData(WireModel):
    """The ``data`` member of every JSON-RPC error the sidecar sends."""

    code: ErrorCode
    message: str
    details: dict[str, Any] = {}


class CouncilError(Exception):
    """A failure to report to the client as a JSON-RPC error (and, during a session, as an ``error`` event)."""

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    @property
    def data(self) -> ErrorData:
        return ErrorData(code=self.code, message=self.message, details=self.details)

    @property
    def jsonrpc_code(self) -> int:
        return JSONRPC_CODES[self.code]


def validation_error(message: str, **details: Any) -> CouncilError:
    return CouncilError(ErrorCode.VALIDATION, message, **details)


def internal_error(message: str, **details: Any) -> CouncilError:
    return CouncilError(ErrorCode.INTERNAL, message, **details)


def from_pydantic(exc: ValidationError, what: str) -> CouncilError:
    """A validation CouncilError with one entry per offending field (dotted path → message)."""
    fields: dict[str, str] = {}
    for err in exc.errors(include_url=False):
        path = ".".join(str(p) for p in err["loc"]) or "(root)"
        fields[path] = err["msg"]
    return validation_error(f"invalid {what}: " + "; ".join(f"{k}: {v}" for k, v in fields.items()), fields=fields)
