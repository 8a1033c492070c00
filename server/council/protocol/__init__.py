"""The wire contract: every JSON-RPC method, event and error the sidecar, the extension and the CLI speak.

This package is the single source of truth; ``docs/protocol.md`` (``python -m tools.docgen``) and the
extension's TypeScript types are generated from it. It builds on the session domain's entities; the domain never
imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from council.protocol.constants import COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD

__all__ = ["COMPLETE_DELTA_METHOD", "COMPLETE_METHOD", "EVENT_METHOD", "event_adapter"]

if TYPE_CHECKING:
    from council.protocol.events import event_adapter


def __getattr__(name: str) -> Any:
    # PEP 562: the event models are built on first use, so importing a light module of the package (the transport
    # needs ``council.protocol.errors`` before ``initialize`` is answered) does not build them.
    if name == "event_adapter":
        from council.protocol.events import event_adapter
        return event_adapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
