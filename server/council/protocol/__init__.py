"""The wire contract: every JSON-RPC method, event and error the sidecar, the extension and the CLI speak.

This package is the single source of truth; ``docs/protocol.md`` is generated from it
(``python -m council.protocol.docgen``) and a test keeps the two in step.
"""

from council.protocol.completion import (
    COMPLETE_DELTA_METHOD,
    COMPLETE_METHOD,
    ChatMessage,
    CompleteDelta,
    CompleteParams,
    CompleteResult,
)
from council.protocol.errors import CouncilError, ErrorCode, ErrorData
from council.protocol.events import EVENT_METHOD, EVENT_TYPES, Event, event_adapter
from council.protocol.methods import METHODS, METHODS_BY_NAME

__all__ = [
    "COMPLETE_DELTA_METHOD",
    "COMPLETE_METHOD",
    "EVENT_METHOD",
    "EVENT_TYPES",
    "METHODS",
    "METHODS_BY_NAME",
    "ChatMessage",
    "CompleteDelta",
    "CompleteParams",
    "CompleteResult",
    "CouncilError",
    "ErrorCode",
    "ErrorData",
    "Event",
    "event_adapter",
]
