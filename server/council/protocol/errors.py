"""The one error shape of the protocol: ``{code: validation|permission|internal, message, details}``.

Every failed request answers with a JSON-RPC error whose ``data`` is an :class:`ErrorData`. Domain code raises
:class:`council.errors.CouncilError`; :func:`error_data` and :data:`JSONRPC_CODES` (re-exported from the light
``council.protocol.constants``) are the only mapping to the wire.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from council.camel import CamelModel
from council.errors import CouncilError, ErrorCode
from council.protocol.constants import JSONRPC_CODES, TRANSPORT_ERRORS  # noqa: F401  (re-exported: the contract's codes)


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
