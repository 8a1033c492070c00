"""Logging for the sidecar: stderr only, no prompts or keys at INFO.

The transport logs methods, ids and reasons, never message bodies (a malformed frame's bytes are quoted only at
DEBUG). Records that would carry bodies are filtered out defensively, and chatty HTTP libraries are raised to
WARNING.
"""

from __future__ import annotations

import logging
import sys

_DROP = ("Exception occurred for message", "Failed to handle request", "Sending data", "Client response for")


class _DropBodies(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_DROP)


def setup_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_DropBodies())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
