"""The wire contract: every JSON-RPC method, event and error the sidecar, the extension and the CLI speak.

This package is the single source of truth; ``docs/protocol.md`` (``python -m council.protocol.docgen``) and the
extension's TypeScript types are generated from it. It builds on the session domain's entities; the domain never
imports it.
"""

from __future__ import annotations

from council.protocol.completion import (
    COMPLETE_DELTA_METHOD,
    COMPLETE_METHOD,
    CompleteDelta,
    CompleteParams,
    CompleteResult,
)
from council.protocol.errors import JSONRPC_CODES, ErrorData, error_data
from council.protocol.events import EVENT_METHOD, EVENT_TYPES, Event, event_adapter
from council.protocol.methods import METHODS, METHODS_BY_NAME

__all__ = [
    "COMPLETE_DELTA_METHOD", "COMPLETE_METHOD", "EVENT_METHOD", "EVENT_TYPES", "JSONRPC_CODES", "METHODS",
    "METHODS_BY_NAME", "CompleteDelta", "CompleteParams", "CompleteResult", "ErrorData", "Event", "error_data",
    "event_adapter",
]
