"""The reader thread both stdio servers share (``council serve``'s transport and ``council mcp``'s guard): it reads
raw chunks of stdin with ``os.read`` off the event loop and hands them to an asyncio queue, one chunk per free slot
of a semaphore, so a flooding client is read no faster than the server consumes. Standard library only, so
``council mcp`` does not import the sidecar's pygls transport to start."""

from __future__ import annotations

import asyncio
import logging
import os
import threading

READ_CHUNK = 64 * 1024

log = logging.getLogger(__name__)


def pump(fd: int, loop: asyncio.AbstractEventLoop, chunks: asyncio.Queue, slots: threading.Semaphore,
         who: str) -> None:
    """Reader thread: one chunk per free slot; an empty chunk is the end of input (also after a read error, which
    is logged as ``who``'s)."""
    while True:
        slots.acquire()
        try:
            chunk = os.read(fd, READ_CHUNK)
        except OSError as exc:
            log.error("%s: reading stdin failed (%s); exiting", who, exc)
            chunk = b""
        try:
            loop.call_soon_threadsafe(chunks.put_nowait, chunk)
        except RuntimeError:  # the loop has closed
            return
        if not chunk:
            return
