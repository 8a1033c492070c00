"""The wire contract: every JSON-RPC method, event and error the sidecar, the extension and the CLI speak.

This package is the single source of truth; ``docs/protocol.md`` is generated from it
(``python -m council.protocol.docgen``) and a test keeps the two in step. Names are re-exported lazily so that
domain modules can import ``council.protocol.wire`` without loading the whole contract (no import cycles).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "COMPLETE_DELTA_METHOD": "completion",
    "COMPLETE_METHOD": "completion",
    "ChatMessage": "completion",
    "CompleteDelta": "completion",
    "CompleteParams": "completion",
    "CompleteResult": "completion",
    "CouncilError": "errors",
    "ErrorCode": "errors",
    "ErrorData": "errors",
    "EVENT_METHOD": "events",
    "EVENT_TYPES": "events",
    "Event": "events",
    "event_adapter": "events",
    "METHODS": "methods",
    "METHODS_BY_NAME": "methods",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'council.protocol' has no attribute {name!r}")
    return getattr(importlib.import_module(f"council.protocol.{_EXPORTS[name]}"), name)
