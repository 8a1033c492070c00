"""The slice of the Language Server Protocol the gate checks before pygls runs it.

pygls does the handshake itself (``initialize``, ``initialized``, ``shutdown``, ``$/cancelRequest``, ``$/setTrace``;
the gate ends the process on ``exit``); the gate only decides what reaches it. ``initialize`` params are checked
here, strictly and with field details (pygls's structuring would coerce ``{"name": 5}`` to ``"5"`` and report errors
without fields). Other LSP notifications (``$/logTrace``, ``$/progress``, ``workspace/…`` …) are accepted and
ignored; a request whose method starts with ``$/`` is unknown (-32601), as LSP requires.
"""

from __future__ import annotations

from typing import Any, Literal

from lsprotocol.types import CANCEL_REQUEST, EXIT, INITIALIZE, INITIALIZED, LOG_TRACE, PROGRESS, SET_TRACE, SHUTDOWN
from pydantic import ConfigDict, StrictInt, StrictStr

from council.camel import CamelModel

__all__ = ["CANCEL_REQUEST", "EXIT", "FORWARDED", "INITIALIZE", "NOTIFICATIONS", "SHUTDOWN", "InitializeParams"]

# Notifications clients send routinely; they are not requests, so sending one with an id is a -32601.
NOTIFICATIONS = frozenset({INITIALIZED, EXIT, CANCEL_REQUEST, SET_TRACE, LOG_TRACE, PROGRESS})
# The LSP notifications pygls is given as they come ($/cancelRequest only for a request in flight; exit never).
FORWARDED = frozenset({INITIALIZED, SET_TRACE})


class ClientInfo(CamelModel):
    model_config = ConfigDict(**{**CamelModel.model_config, "extra": "allow"})

    name: StrictStr
    version: StrictStr | None = None


class InitializeParams(CamelModel):
    """What the gate checks of ``initialize`` params (LSP's other fields are accepted and left to pygls)."""

    model_config = ConfigDict(**{**CamelModel.model_config, "extra": "allow"})

    process_id: StrictInt | None = None
    client_info: ClientInfo | None = None
    capabilities: dict[str, Any]
    root_uri: StrictStr | None = None
    initialization_options: Any = None
    trace: Literal["off", "messages", "verbose"] | None = None
