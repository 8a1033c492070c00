"""The wire contract: every JSON-RPC method, event and error the sidecar, the extension and the CLI speak.

This package is the single source of truth; ``docs/protocol.md`` (``python -m tools.docgen``) and the
extension's TypeScript types are generated from it. It builds on the session domain's entities; the domain never
imports it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each name is read from its module on first use (PEP 562), so importing one light module of the package (the
# transport needs ``council.protocol.errors`` before ``initialize`` is answered) does not build every model.
_WHERE = {
    "COMPLETE_DELTA_METHOD": "constants", "COMPLETE_METHOD": "constants", "CompleteDelta": "completion",
    "CompleteParams": "completion", "CompleteResult": "completion",
    "JSONRPC_CODES": "errors", "ErrorData": "errors", "error_data": "errors",
    "EVENT_METHOD": "constants", "EVENT_TYPES": "events", "Event": "events", "event_adapter": "events",
    "METHODS": "methods", "METHODS_BY_NAME": "methods",
}

__all__ = [
    "COMPLETE_DELTA_METHOD", "COMPLETE_METHOD", "EVENT_METHOD", "EVENT_TYPES", "JSONRPC_CODES", "METHODS",
    "METHODS_BY_NAME", "CompleteDelta", "CompleteParams", "CompleteResult", "ErrorData", "Event", "error_data",
    "event_adapter",
]

if TYPE_CHECKING:
    from council.protocol.completion import CompleteDelta, CompleteParams, CompleteResult
    from council.protocol.constants import COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD
    from council.protocol.errors import JSONRPC_CODES, ErrorData, error_data
    from council.protocol.events import EVENT_TYPES, Event, event_adapter
    from council.protocol.methods import METHODS, METHODS_BY_NAME


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
