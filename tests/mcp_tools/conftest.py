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
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

PROBLEM = "Should we split our monolith into services this quarter?"


@pytest.fixture
def mcp_client(tmp_path: Path):
    """``async with mcp_client(script=..., elicit=callback) as session`` → an initialised ClientSession."""

    @asynccontextmanager
    async def run(script: dict[str, Any] | None = None, elicit: Callable[..., Awaitable[Any]] | None = None,
                  workspace: Path | None = None, extra: list[str] | None = None) -> AsyncIterator[ClientSession]:
        args = ["-m", "council", "mcp", "--provider", "scripted", "--no-embeddings",
                "--workspace", str(workspace or tmp_path / "ws"), *(extra or [])]
        if script is not None:
            path = tmp_path / f"script-{len(list(tmp_path.glob('script-*')))}.json"
            path.write_text(json.dumps(script), encoding="utf-8")
            args += ["--script", str(path)]
        params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ), cwd=str(tmp_path))
        with (tmp_path / "server.log").open("a", encoding="utf-8") as errlog, anyio.fail_after(90):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, elicitation_callback=elicit) as session:
                    await session.initialize()
                    yield session

    return run


def bullets(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("- "))
