"""Logging for the sidecar: stderr only, pygls quiet, no prompts or keys at INFO.

pygls logs every message body at INFO ("Sending data: …") and each failed request with its params and a traceback
at ERROR; both would put prompts in logs. Its loggers are raised to WARNING and those records (the gate and the
handlers log methods, ids and reasons themselves, never bodies) are filtered out. A malformed frame's bytes are
quoted only at DEBUG. Chatty HTTP libraries are raised to WARNING.
"""

from __future__ import annotations

import logging
import sys

_DROP = ("Exception occurred for message", "Failed to handle request", "Failed to handle notification",
         "Sending data", "Client response for", "Unable to deserialize message", "Language server initialized")
_QUIET = ("pygls", "httpx", "httpcore", "mcp")  # the mcp SDK logs message bodies at DEBUG


def setup_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(lambda record: not str(record.msg).startswith(_DROP))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in _QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
