"""In VS Code, ``council.models`` can name agent-CLI seats beside the chat models: over real JSON-RPC to the real
``council serve``, a client that lends two chat models (as the extension does: ``council/complete``) sends the map
``{"Security Expert": "claude:claude-sonnet-4-6"}`` (the setting's value, passed as ``options.seating``). That
persona's calls run the real Claude Code, pointed at a scripted Messages API on 127.0.0.1; the others stay on the
chat's models; the seats line names the CLI seat and the bills line how Claude Code bills. A CLI that is not on PATH
is said under the seats with its fix before any call; one that is not signed in falls back at its first call, with
one line naming the fix."""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

from council.client.rpc import start_sidecar

from ..headless.conftest import PROBLEM, client_model_reply, events_of
from .council_model import council_reply
from .fake_models import FakeModels, serving

ALPHA = {"id": "alpha/one", "vendor": "alpha-labs", "family": "alpha-1", "name": "Alpha One"}
BETA = {"id": "beta/two", "vendor": "beta-labs", "family": "beta-2", "name": "Beta Two"}
CLIENT = {"completion": True, "completionModel": "Alpha One", "models": [ALPHA, BETA], "chatModelId": ALPHA["id"]}
COUNCIL = ["Software Architect", "Security Expert", "Devil's Advocate"]
SPEC = "claude:claude-sonnet-4-6"
MAP = {"security expert": SPEC, "Devil's Advocate": "beta/two"}  # a key as people type it; a chat model beside


class ChatModels:
    """The client's chat models: each call recorded by purpose and model id, answered like the scripted model."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []

    async def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((params["purpose"], params.get("modelId")))
        _, text = client_model_reply(params)
        return {"text": text, "model": {ALPHA["id"]: "Alpha One", BETA["id"]: "Beta Two"}.get(params.get("modelId")
                                                                                           or "", "Alpha One")}

    def models_of(self, purpose: str) -> set[str | None]:
        return {m for p, m in self.calls if p == purpose}


async def consult(chat: ChatModels, env: dict[str, str] | None = None) -> tuple[Any, dict[str, Any]]:
    """One session on the real sidecar with the map; the sidecar (its events) and the turn's result."""
    async with start_sidecar(["--provider", "client", "--no-embeddings"], env=env, stderr=None) as sc:
        sc.serve_completions(chat.complete)
        with anyio.fail_after(300):
            result = await sc.call("council/turn", {"text": PROBLEM, "client": CLIENT, "options": {
                "personas": COUNCIL, "clarify": False, "maxCycles": 1, "provider": "client", "seating": MAP}})
        return sc, result


@pytest.fixture
def claude_at(home: Path, marker: Path, monkeypatch: pytest.MonkeyPatch):
    """``claude_at(status)``: Claude Code on PATH pointed at a scripted Messages API answering with that status."""
    def start(status: int = 200, error: str = "fake failure") -> FakeModels:
        fake = FakeModels(marker=marker, answer=partial(council_reply, "claude"), status=status, error=error)
        url = stack.enter_context(serving(fake))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        for var in ("COUNCIL_CONFIG", "COUNCIL_PROVIDER", "COUNCIL_AGENT_CLIS"):
            monkeypatch.delenv(var, raising=False)
        return fake

    with ExitStack() as stack:
        yield start


async def test_a_persona_seated_on_a_cli_runs_it_and_the_others_stay_on_the_chat_models(claude_at, marker: Path):
    fake = claude_at()
    chat = ChatModels()
    sc, r = await consult(chat)
    sid = r["sessionId"]
    assert r["status"] == "completed", r
    [seated] = events_of(sc, sid, "seating.decided")
    seats = {s["persona"]: s["model"] for s in seated["seating"]["seats"]}
    assert seats["Security Expert"]["provider"] == "claude" and seats["Security Expert"]["id"] == SPEC
    assert seats["Devil's Advocate"]["id"] == "beta/two" and seats["Software Architect"]["id"] == "alpha/one"
    assert seated["seating"]["misses"] == []
    text = seated["markdown"]
    assert f"Security Expert → {SPEC}" in text and "Devil's Advocate → Beta Two" in text, text
    assert "Claude Code uses your Claude plan's usage limits" in text, text  # how the CLI seat bills
    [cost] = events_of(sc, sid, "cost.estimated")
    assert f"on {SPEC}" in cost["markdown"], cost["markdown"]  # the calls planned on the CLI, by name

    assert chat.models_of("Security Expert") == set()  # never the chat's models
    assert chat.models_of("Devil's Advocate") == {"beta/two"} and chat.models_of("Software Architect") == {"alpha/one"}
    assert chat.models_of("synthesizer") == {"alpha/one"}  # the chair stays on the chat's model
    asked = [q for q in fake.model_requests() if "Security Expert" in str(q.body)]
    assert asked and all(q.body.get("model") == "claude-sonnet-4-6" for q in asked)
    [security] = [e for e in events_of(sc, sid, "persona.completed") if e["persona"] == "Security Expert"]
    assert security["response"]["position"].endswith("[claude]")  # its text came from Claude Code's server
    assert r["usage"]["byModel"][SPEC] >= 1 and events_of(sc, sid, "seat.fellBack") == []
    assert not marker.exists()


async def test_a_cli_that_is_not_installed_is_said_under_the_seats_before_any_call(home: Path, tmp_path: Path):
    empty = tmp_path / "no-clis"
    empty.mkdir()
    chat = ChatModels()
    path = os.pathsep.join([str(empty), str(Path(sys.executable).parent)])  # Python only: no claude
    sc, r = await consult(chat, env={"PATH": path})
    sid = r["sessionId"]
    assert r["status"] == "completed", r
    [seated] = events_of(sc, sid, "seating.decided")
    [miss] = seated["seating"]["misses"]
    assert miss["reason"] == "cli_not_installed" and miss["modelId"] == SPEC
    assert "Claude Code is not installed: install it (npm install -g @anthropic-ai/claude-code)" in miss["detail"]
    line = seated["markdown"]
    assert line.count("⚠️") == 1 and f"Security Expert → “{SPEC}”: Claude Code is not installed" in line, line
    assert "so Security Expert speaks with Alpha One" in line and "Claude Code uses" not in line, line
    assert chat.models_of("Security Expert") == {"alpha/one"}
    assert events_of(sc, sid, "seat.fellBack") == [] and SPEC not in r["usage"]["byModel"]


async def test_a_cli_that_is_not_signed_in_falls_back_at_its_first_call_with_the_fix(claude_at, marker: Path):
    fake = claude_at(401, "invalid x-api-key")
    chat = ChatModels()
    sc, r = await consult(chat)
    sid = r["sessionId"]
    assert r["status"] == "completed", r
    assert fake.model_requests()  # Claude Code asked its server once, and was refused
    [fell] = events_of(sc, sid, "seat.fellBack")
    assert fell["personas"] == ["Security Expert"] and fell["fromModel"]["id"] == SPEC
    line = fell["markdown"]
    assert line.count("\n\n") == 1 and f"{SPEC} cannot be used (Claude Code is not signed in: run" in line, line
    assert "Security Expert speaks with Alpha One from now on" in line, line
    assert chat.models_of("Security Expert") == {"alpha/one"}  # the same call asked again on the chat's model
    [security] = [e for e in events_of(sc, sid, "persona.completed") if e["persona"] == "Security Expert"]
    assert not security["response"]["abstained"]
    assert not marker.exists()
