"""Runs an :class:`~council.transport.endpoint.Endpoint` on stdin/stdout.

A daemon thread blocks in ``os.read`` on stdin (pipes, files and consoles, on every OS) and hands chunks to the
event loop with back-pressure (at most :data:`QUEUE_CHUNKS` unread chunks), so a flood costs bounded memory; the
loop frames them (:class:`~council.transport.framing.FrameReader`) and dispatches. Each frame is written whole and
synchronously. When input stops inside a body for :data:`STALL_SECONDS`, the reader checks whether the declared
length was simply too long (``FrameReader.stalled``). The server stops on ``exit``, at the end of input or when
stdout breaks; input that ends inside a frame is reported on stderr. The result is the process exit code: 0 after
``shutdown``, else 1 (LSP's rule).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import BinaryIO

from council.transport.endpoint import Endpoint
from council.transport.framing import FrameReader

log = logging.getLogger("council.serve")

READ_CHUNK = 64 * 1024
QUEUE_CHUNKS = 4
STALL_SECONDS = 2.0  # quiet input inside a body that is already whole JSON: the declared length was too long


def serve_stdio(endpoint: Endpoint, stdin_fd: int, stdout: BinaryIO) -> int:
    """Serve until exit; returns the exit code."""
    endpoint.write = frame_writer(stdout)
    try:
        return asyncio.run(_serve(endpoint, stdin_fd))
    except KeyboardInterrupt:
        log.info("interrupted")
        return 1


def frame_writer(stream: BinaryIO) -> Callable[[bytes], None]:
    """Write all of ``data`` (a raw stream may take it in parts) and flush."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = stream.write(view)
            if written is None:
                raise BlockingIOError("stdout is non-blocking and full")
            view = view[written:]
        stream.flush()

    return write


async def _serve(endpoint: Endpoint, stdin_fd: int) -> int:
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
    slots = threading.Semaphore(QUEUE_CHUNKS)
    endpoint.on_finish = lambda: chunks.put_nowait(None)
    threading.Thread(target=_pump, args=(stdin_fd, loop, chunks, slots), name="council-stdin", daemon=True).start()
    reader = FrameReader()
    while not endpoint.finished:
        try:
            chunk = await (asyncio.wait_for(chunks.get(), STALL_SECONDS) if reader.awaiting_body else chunks.get())
        except asyncio.TimeoutError:
            for event in reader.stalled():  # a body declared too long, and nothing follows it
                endpoint.receive(event)
            continue
        if chunk is None:  # the endpoint finished (exit, or stdout broke)
            break
        slots.release()
        if not chunk:
            fault = reader.close()
            if fault is not None:
                log.error("council serve: input ended inside a frame (%s); exiting", fault.message)
            else:
                log.info("input closed; exiting")
            break
        for event in reader.feed(chunk):
            endpoint.receive(event)
        await asyncio.sleep(0)  # let request tasks run between chunks, even under a flood
    await endpoint.aclose()
    assert endpoint.exit_code is not None
    return endpoint.exit_code


def _pump(fd: int, loop: asyncio.AbstractEventLoop, chunks: asyncio.Queue[bytes | None],
          slots: threading.Semaphore) -> None:
    """Reader thread: one chunk per free slot; an empty chunk is the end of input."""
    while True:
        slots.acquire()
        try:
            chunk = os.read(fd, READ_CHUNK)
        except OSError as exc:
            log.error("council serve: reading stdin failed (%s); exiting", exc)
            chunk = b""
        try:
            loop.call_soon_threadsafe(chunks.put_nowait, chunk)
        except RuntimeError:  # the loop has closed
            return
        if not chunk:
            return
