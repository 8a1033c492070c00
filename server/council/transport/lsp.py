"""The slice of the Language Server Protocol the sidecar speaks, so vscode-languageclient can host it.

``initialize`` (validated params, an empty capability set and ``serverInfo``), ``initialized``, ``shutdown`` and
``exit``, and ``$/cancelRequest``. Other LSP notifications (``$/setTrace``, ``$/logTrace``, ``$/progress`` …)
are accepted and ignored; a request whose method starts with ``$/`` is unknown (-32601), as LSP requires.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, StrictInt, StrictStr

from council.camel import CamelModel

INITIALIZE = "initialize"
INITIALIZED = "initialized"
SHUTDOWN = "shutdown"
EXIT = "exit"
CANCEL_REQUEST = "$/cancelRequest"

# Notifications clients send routinely; they are not requests, so sending one with an id is a -32601.
NOTIFICATIONS = frozenset({INITIALIZED, EXIT, CANCEL_REQUEST, "$/setTrace", "$/logTrace", "$/progress"})


class ClientInfo(CamelModel):
    model_config = ConfigDict(**{**CamelModel.model_config, "extra": "allow"})

    name: StrictStr
    version: StrictStr | None = None


class InitializeParams(CamelModel):
    """What the sidecar checks of ``initialize`` params (LSP's other fields are accepted and ignored)."""

    model_config = ConfigDict(**{**CamelModel.model_config, "extra": "allow"})

    process_id: StrictInt | None = None
    client_info: ClientInfo | None = None
    capabilities: dict[str, Any] = {}
    root_uri: StrictStr | None = None
    initialization_options: Any = None
    trace: Literal["off", "messages", "verbose"] | None = None


def initialize_result(name: str, version: str) -> dict[str, Any]:
    """The sidecar offers no LSP features: only the handshake and its own ``council/*`` methods."""
    return {"capabilities": {}, "serverInfo": {"name": name, "version": version}}


class CancelParams(CamelModel):
    model_config = ConfigDict(**{**CamelModel.model_config, "extra": "allow"})

    id: StrictInt | StrictStr
