"""The slice of the Language Server Protocol the gate checks before pygls runs it (pygls does the handshake itself).

``initialize`` params are checked strictly, with field details (pygls's structuring would coerce ``{"name": 5}`` to
``"5"``), by ``council.transport.lsp_params``'s model, except that plainly valid params are accepted by
:func:`plainly_valid` without loading pydantic, so ``initialize`` is answered before anything heavy is imported.
Other LSP notifications are accepted and ignored; a request whose method starts with ``$/`` is unknown (-32601).
"""

from __future__ import annotations

from typing import Any

INITIALIZE = "initialize"
INITIALIZED = "initialized"
SHUTDOWN = "shutdown"
EXIT = "exit"
CANCEL_REQUEST = "$/cancelRequest"
SET_TRACE = "$/setTrace"

# Notifications clients send routinely; they are not requests, so sending one with an id is a -32601.
NOTIFICATIONS = frozenset({INITIALIZED, EXIT, CANCEL_REQUEST, SET_TRACE, "$/logTrace", "$/progress"})
# The LSP notifications pygls is given as they come ($/cancelRequest only for a request in flight; exit never).
FORWARDED = frozenset({INITIALIZED, SET_TRACE})

TRACE_VALUES = (None, "off", "messages", "verbose")
CAPABILITY_GROUPS = ("workspace", "textDocument", "notebookDocument", "window", "general")
# The model's snake_case field names (it accepts them too): params using one go to the model.
_SNAKE_NAMES = frozenset({"process_id", "client_info", "root_path", "root_uri", "initialization_options",
                          "workspace_folders", "text_document", "notebook_document"})


def plainly_valid(params: Any) -> bool:
    """True only when ``lsp_params.InitializeParams`` certainly accepts ``params`` (exact JSON types, camelCase
    names); False means "let the model decide", which accepts or says what is wrong, field by field."""
    if not isinstance(params, dict) or _SNAKE_NAMES & params.keys():
        return False
    info, caps, folders = params.get("clientInfo"), params.get("capabilities"), params.get("workspaceFolders")
    return (isinstance(caps, dict) and not _SNAKE_NAMES & caps.keys()
            and all(caps.get(group) is None or isinstance(caps[group], dict) for group in CAPABILITY_GROUPS)
            and _none_or(int, params.get("processId"))
            and all(_none_or(str, params.get(key)) for key in ("rootUri", "rootPath", "locale"))
            and params.get("trace") in TRACE_VALUES
            and (info is None or (isinstance(info, dict) and type(info.get("name")) is str
                                  and _none_or(str, info.get("version"))))
            and (folders is None or (isinstance(folders, list) and all(
                isinstance(f, dict) and type(f.get("uri")) is str and type(f.get("name")) is str
                for f in folders))))


def client_name(params: Any) -> str | None:
    info = params.get("clientInfo") or params.get("client_info") if isinstance(params, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else None


def _none_or(kind: type, value: Any) -> bool:
    return value is None or type(value) is kind
