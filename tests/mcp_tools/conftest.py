"""MCP fixtures: an MCP client from the official SDK driving ``council mcp`` as a subprocess over stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

PROBLEM = "Should we split our monolith into services this quarter?"
MODERN = "2026-07-28"  # the MCP revision without a handshake


@pytest.fixture
def mcp_client(tmp_path: Path):
    """``async with mcp_client(script=..., elicit=callback) as session`` → an initialised ClientSession."""

    @asynccontextmanager
    async def run(script: dict[str, Any] | None = None, elicit: Callable[..., Awaitable[Any]] | None = None,
                  workspace: Path | None = None, extra: list[str] | None = None) -> AsyncIterator[ClientSession]:
        ws = workspace or tmp_path / "ws"
        ws.mkdir(parents=True, exist_ok=True)  # a workspace that is no folder is a usage error
        args = ["-m", "council", "mcp", "--provider", "scripted", "--no-embeddings",
                "--workspace", str(ws), *(extra or [])]
        if script is not None:
            path = tmp_path / f"script-{len(list(tmp_path.glob('script-*')))}.json"
            path.write_text(json.dumps(script), encoding="utf-8")
            args += ["--script", str(path)]
        async with council_mcp(args, tmp_path, tmp_path, elicitation_callback=elicit) as session:
            yield session

    return run


@pytest.fixture
def raw(tmp_path: Path):
    """A ``council mcp`` spoken to line by line (``test_mcp_wire.RawServer``), killed after the test if still up."""
    from .test_mcp_wire import RawServer  # the test module that owns the raw-wire client

    server = RawServer(tmp_path)
    yield server
    if server.proc.poll() is None:
        server.proc.kill()
        server.proc.wait()


@pytest.fixture
def modern_client(tmp_path: Path):
    """``async with modern_client(args, elicit=…, model=…) as client`` → a 2026-07-28 ``Client`` of ``council mcp``
    (``args`` after ``--workspace``, none with ``workspace=False``; the server's stderr in ``server.log``)."""

    @asynccontextmanager
    async def run(args: list[str], *, workspace: bool = True, **callbacks: Any) -> AsyncIterator[Client]:
        (tmp_path / "ws").mkdir(exist_ok=True)
        fixed = ["--workspace", str(tmp_path / "ws")] if workspace else []
        env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_")}
        params = StdioServerParameters(
            command=sys.executable, cwd=str(tmp_path), env={**env, "COUNCIL_OLLAMA_URL": "http://127.0.0.1:9"},
            args=["-m", "council", "mcp", "--no-embeddings", *fixed, *args])
        with (tmp_path / "server.log").open("a", encoding="utf-8") as errlog, anyio.fail_after(90):
            async with Client(stdio_client(params, errlog=errlog), mode=MODERN, **callbacks) as client:
                assert client.protocol_version == MODERN
                yield client

    return run


@asynccontextmanager
async def council_mcp(args: list[str], cwd: Path, logs: Path, **client: Any) -> AsyncIterator[ClientSession]:
    """``python args…`` (a ``council mcp`` command line) started in ``cwd`` as the SDK's stdio client starts a
    server, its stderr appended to ``logs/server.log``; yields the initialised session (``client``: the
    ClientSession's callbacks)."""
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ), cwd=str(cwd))
    with (logs / "server.log").open("a", encoding="utf-8") as errlog, anyio.fail_after(90):
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, **client) as session:
                await session.initialize()
                yield session


def tool_error(result: types.CallToolResult) -> dict[str, Any]:
    """A failed call's ``{code, message, details}``: an error result has no ``structuredContent`` (clients check it
    against the outputSchema); its text is a readable line, then the JSON ``{"error": …}``."""
    assert result.is_error and result.structured_content is None, result
    first, data = result.content
    error = json.loads(data.text)["error"]
    assert first.text == f"Council {error['code']} error: {error['message']}"
    return error


def bullets(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("- "))


async def cancel_mid_call(session: ClientSession, tool: str, arguments: dict[str, Any], *, trace: Path,
                          started_when: str, cancelled_calls: int) -> list[dict[str, Any]]:
    """Call ``tool``, wait for a progress message containing ``started_when``, cancel the request with MCP's
    ``notifications/cancelled``, wait until the scripted provider's trace shows ``cancelled_calls`` cancelled calls,
    and return the trace's lines (start / end / cancelled per model call)."""
    started = anyio.Event()

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        if message and started_when in message:
            started.set()

    request_id = session._dispatcher._next_id + 1  # the id the next request gets (the SDK 2.x's JSON-RPC dispatcher)

    async def call() -> None:
        try:
            await session.call_tool(tool, arguments, progress_callback=on_progress)
        except Exception:  # a cancelled request gets no answer: the task group below ends the wait
            pass

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        with anyio.fail_after(20):
            await started.wait()
        await anyio.sleep(0.3)
        await session.send_notification(types.CancelledNotification(
            params=types.CancelledNotificationParams(requestId=request_id, reason="test")))
        with anyio.fail_after(10):
            while not trace.exists() or trace.read_text().count('"cancelled"') < cancelled_calls:
                await anyio.sleep(0.05)
        tg.cancel_scope.cancel()
    await anyio.sleep(0.3)  # calls that end after the cancel would show now
    return [json.loads(x) for x in trace.read_text().splitlines()]
