"""Headless fixtures: start the real ``council serve`` subprocess and drive it over strict JSON-RPC."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from council.client.sidecar import Sidecar, start_sidecar

PROBLEM = "Should we split our monolith into services this quarter?"


@pytest.fixture
def script_file(tmp_path: Path) -> Callable[[dict[str, Any]], str]:
    def write(script: dict[str, Any]) -> str:
        path = tmp_path / f"script-{len(list(tmp_path.iterdir()))}.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        return str(path)
    return write


@pytest.fixture
def sidecar(tmp_path: Path):
    """``async with sidecar(script=..., args=[...]) as sc`` → a running scripted sidecar."""

    @asynccontextmanager
    async def run(script: dict[str, Any] | None = None, args: list[str] | None = None,
                  provider: str = "scripted") -> AsyncIterator[Sidecar]:
        argv = ["--provider", provider, "--no-embeddings", "--log-level", "DEBUG", *(args or [])]
        if script is not None:
            path = tmp_path / "script.json"
            path.write_text(json.dumps(script), encoding="utf-8")
            argv += ["--script", str(path)]
        with anyio.fail_after(60):
            async with start_sidecar(argv, stderr=None) as sc:
                yield sc

    return run


def events_of(sc: Sidecar, session_id: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in sc.session_events(session_id) if e["type"] == kind]


async def wait_for_event(sc: Sidecar, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20) -> dict:
    with anyio.fail_after(timeout):
        while True:
            for event in sc.events:
                if predicate(event):
                    return event
            await anyio.sleep(0.02)


def persona_reply(**overrides: Any) -> dict[str, Any]:
    reply = {
        "position": "Keep debating: the trade-offs are not settled.",
        "summary": [f"point {i}" for i in range(5)], "advice": [f"advice {i}" for i in range(5)],
        "risks": ["it could stall"], "assumptions": [], "questions": [],
        "next_steps": [f"step {i}" for i in range(5)], "confidence": "medium",
        "confidence_rationale": "scripted", "changed_position": False, "change_reason": "",
        "continue_debate": True,
    }
    reply.update(overrides)
    return reply
