"""Start ``council serve`` as a subprocess and talk to it: the handshake and one typed call per method.

Used by ``council ask`` and by the headless tests; it speaks exactly the documented wire contract.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import Process

from council.client.rpc import Connection
from council.protocol import COMPLETE_METHOD, EVENT_METHOD


class Sidecar:
    """A running sidecar: ``call`` any council method; events arrive at the registered listeners."""

    def __init__(self, process: Process, connection: Connection) -> None:
        self.process = process
        self.rpc = connection
        self.events: list[dict[str, Any]] = []
        self._event_listeners: list[Callable[[dict[str, Any]], None]] = []
        connection.listen(self._on_notification)

    def _on_notification(self, method: str, params: Any) -> None:
        if method == EVENT_METHOD and isinstance(params, dict):
            self.events.append(params)
            for listener in self._event_listeners:
                listener(params)

    def on_event(self, listener: Callable[[dict[str, Any]], None]) -> None:
        self._event_listeners.append(listener)

    def serve_completions(self, handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> None:
        self.rpc.on_request(COMPLETE_METHOD, handler)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.rpc.request(method, params or {})

    def session_events(self, session_id: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("sessionId") == session_id]


@asynccontextmanager
async def start_sidecar(args: list[str] | None = None, *, env: dict[str, str] | None = None,
                        stderr: int | None = None) -> AsyncIterator[Sidecar]:
    """Run ``council serve ARGS``, do the initialize handshake, and shut it down cleanly on exit."""
    process = await anyio.open_process([sys.executable, "-m", "council", "serve", *(args or [])],
                                       env={**os.environ, **(env or {})}, stderr=stderr)
    assert process.stdout is not None and process.stdin is not None
    connection = Connection(process.stdout, process.stdin)
    async with anyio.create_task_group() as tg:
        tg.start_soon(connection.run, tg)
        sidecar = Sidecar(process, connection)
        try:
            await sidecar.call("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
            await connection.notify("initialized", {})
            yield sidecar
        finally:
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(5):
                    if not connection.closed.is_set() and process.returncode is None:
                        try:
                            await sidecar.call("shutdown")
                            await connection.notify("exit")
                        except Exception:
                            pass
                        await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            tg.cancel_scope.cancel()
