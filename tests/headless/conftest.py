"""Headless fixtures: start the real ``council serve`` subprocess and drive it over strict JSON-RPC."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from council.client.rpc import Sidecar, start_sidecar
from council.protocol.completion import CompleteParams
from council.providers.base import CompletionRequest
from council.providers.scripted import auto_reply

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


def client_model_reply(params: dict[str, Any]) -> tuple[CompleteParams, str]:
    """A ``council/complete`` request as this test client's "own model" answers it: the parsed params and the
    scripted model's reply text (valid JSON for the schema asked)."""
    p = CompleteParams.model_validate(params)
    reply = auto_reply(CompletionRequest(purpose=p.purpose, messages=p.messages, json_schema=p.json_schema))
    return p, json.dumps(reply)


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


FLIP_FLOP_COUNCIL = ["Software Architect", "Security Expert", "Devil's Advocate"]


def flip_flop_script(cycles: int = 25) -> dict[str, Any]:
    """A council that never settles: two personas swap votes every cycle (2–1 splits, nobody stable) and
    everyone always wants to continue, so only the cycle cap can stop the debate."""
    first = {k: v for k, v in persona_reply().items() if k not in ("changed_position", "change_reason")}
    rules: list[dict[str, Any]] = [  # the scripted moderator places "prefers option X" under X: the first votes
        {"when": {"schema": "PersonaReply", "purpose": name, "cycle": 1},
         "reply": {**first, "position": f"For now it prefers option {option}.", "vote_confidence": 0.7}}
        for name, option in (("Software Architect", "A"), ("Security Expert", "B"), ("Devil's Advocate", "A"))]
    for cycle in range(2, cycles + 1):
        for name, option in (("Software Architect", "BA"[cycle % 2]), ("Security Expert", "AB"[cycle % 2]),
                             ("Devil's Advocate", "A")):
            rules.append({"when": {"schema": "PersonaReply", "purpose": name, "cycle": cycle},
                          "reply": persona_reply(option_id=option, vote_confidence=0.7, changed_position=True,
                                                 change_reason="a new cost argument", continue_debate=True)})
    rules.append({"when": {"schema": "PersonaReply"}, "reply": {
        k: v for k, v in persona_reply().items() if k not in ("changed_position", "change_reason")}})
    return {"rules": rules}
