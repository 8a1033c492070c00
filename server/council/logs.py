"""Logging for the sidecar: stderr only, pygls quiet, no prompts or keys at INFO.

pygls logs every message body at INFO and each failed request with a traceback at ERROR; both would put prompts
in logs. Its loggers are raised to WARNING and the request-failure records, which the server logs itself without
bodies, are filtered out.
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
    for name in ("pygls", "pygls.protocol", "pygls.protocol.json_rpc", "pygls.server", "pygls.feature_manager"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.WARNING)
        logger.addFilter(_DropBodies())
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
