"""Runs the gate and pygls on stdin/stdout.

A daemon thread blocks in ``os.read`` on stdin (pipes, files and consoles, on every OS) and hands chunks to the
event loop with back-pressure (at most :data:`QUEUE_CHUNKS` unread), so a flood costs bounded memory. One
:class:`~council.transport.framing.FrameWriter` writes every frame whole, pygls's and the gate's. Input stopped inside
a body for :data:`STALL_SECONDS` is checked for a declared length that was too long (``FrameReader.stalled``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import TYPE_CHECKING

from council.transport.framing import FrameReader

if TYPE_CHECKING:
    from council.transport.gate import Gate

log = logging.getLogger("council.serve")

QUEUE_CHUNKS = 4
READ_CHUNK = 64 * 1024
STALL_SECONDS = 2.0  # quiet input inside a body that is already whole JSON: the declared length was too long


def reading(fd: int, who: str, thread: str) -> tuple[asyncio.Queue, threading.Semaphore]:
    """Start the stdin reader thread of both stdio servers (``council serve``, ``council mcp``): the queue its chunks
    arrive on, one per slot released, so a flooding client is read no faster than the server consumes. An empty
    chunk is the end of input (also after a read error, logged as ``who``'s)."""
    loop, chunks, slots = asyncio.get_running_loop(), asyncio.Queue(), threading.Semaphore(QUEUE_CHUNKS)

    def pump() -> None:
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

    threading.Thread(target=pump, name=thread, daemon=True).start()
    return chunks, slots


def serve_stdio(gate: Gate, stdin_fd: int) -> int:
    try:
        return asyncio.run(_serve(gate, stdin_fd))
    except KeyboardInterrupt:
        log.info("interrupted")
        return 1


async def _serve(gate: Gate, stdin_fd: int) -> int:
    chunks, slots = reading(stdin_fd, "council serve", "council-stdin")
    gate.on_stop = lambda: chunks.put_nowait(None)  # wakes the loop below: the gate stopped
    reader = FrameReader()
    while not gate.stopped:
        try:
            chunk = await (asyncio.wait_for(chunks.get(), STALL_SECONDS) if reader.awaiting_body else chunks.get())
        except asyncio.TimeoutError:
            for event in reader.stalled():  # a body declared too long, and nothing follows it
                gate.receive(event)
            continue
        if chunk is None:  # the gate stopped (exit, or stdout broke)
            break
        slots.release()
        if not chunk:
            for event in reader.stalled():  # a body declared too long (or too large) that the input ended after
                gate.receive(event)
            fault = reader.close()
            if fault is not None:
                log.error("council serve: input ended inside a frame (%s); exiting", fault.message)
            else:
                log.info("input closed; exiting")
            break
        for event in reader.feed(chunk):
            gate.receive(event)
        await asyncio.sleep(0)  # let request tasks run between chunks, even under a flood
    return await gate.close()

