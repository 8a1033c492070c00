"""Found, not configured: with no provider configured and no client model, ``council ask`` and ``council mcp`` seat
the council on the agent CLIs found on PATH that answer — the real CLIs, each pointed at its own vendor's scripted
model on 127.0.0.1 by its environment variables (Codex reads none, so it stays off this PATH) — spread as
``diverse`` spreads model families, the moderator and the chair on the first, and say so before the first call with
the calls per CLI and how each bills. A CLI on PATH that does not answer is left out; with none on PATH, or with
``COUNCIL_AGENT_CLIS=0``, the selection goes on as before (a local Ollama, the embedded model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from functools import partial
from pathlib import Path

import anyio
import mcp.types as types
import pytest

from council.config import CouncilConfig, load_config
from council.personas.loader import load_personas
from council.protocol.methods import SessionOptions, TurnParams
from council.provider_hub import ProviderHub
from council.providers import found
from council.session.calls.formats import HEAD

from ..mcp_tools.conftest import council_mcp
from .council_model import council_reply
from .fake_models import FakeModels, serving

QUESTION = "Should we split our monolith into services this quarter?"
PERSONAS = ["Software Architect", "Senior Developer", "Devil's Advocate"]
ON_PATH = ("claude", "gemini", "copilot")
CHECK = "Reply with the word OK."
FOUND_LINE = "No model is configured, so the council sits on the agent CLIs found on PATH that answer: "


@pytest.fixture
def path_with(home: Path, cli_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``path_with(*kinds)``: PATH holds those of the real CLIs (and what PATH held before, without the others)."""
    rest = [p for p in os.environ["PATH"].split(os.pathsep) if p and Path(p).resolve() != Path(cli_bin).resolve()]

    def only(*kinds: str) -> Path:
        folder = tmp_path / "bin"
        folder.mkdir(exist_ok=True)
        for kind in kinds:
            (folder / kind).symlink_to(Path(cli_bin) / kind)
        monkeypatch.setenv("PATH", os.pathsep.join([str(folder), *rest]))
        return folder

    return only


@pytest.fixture
def vendors(home: Path, marker: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, FakeModels]]:
    """Claude Code, Gemini CLI and Copilot CLI each pointed at its vendor's scripted model by its own variables."""
    with ExitStack() as stack:
        fakes = {kind: FakeModels(marker=marker, answer=partial(council_reply, kind)) for kind in ON_PATH}
        urls = {kind: stack.enter_context(serving(fake)) for kind, fake in fakes.items()}
        monkeypatch.setenv("ANTHROPIC_BASE_URL", urls["claude"])
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", urls["gemini"])
        monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", urls["copilot"] + "/v1")
        monkeypatch.setenv("COPILOT_MODEL", "grok-code-fast-1")  # Copilot's BYOK provider names no default
        for var in ("COUNCIL_CONFIG", "COUNCIL_PROVIDER", "COUNCIL_AGENT_CLIS"):
            monkeypatch.delenv(var, raising=False)
        yield fakes


def checks(fake: FakeModels) -> int:
    """The CLI's checks that reached its model (Gemini CLI in auto mode first asks a router model, unanswered
    here: ``:generateContent``)."""
    return sum(CHECK in json.dumps(r.body) for r in fake.model_requests() if ":generateContent" not in r.path)


def test_council_ask_seats_the_clis_found_on_path_and_says_so_first(path_with, vendors, marker: Path):
    path_with(*ON_PATH, "codex-not-this-one")  # a name that is no CLI of ours is ignored
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "council", "ask", "--yes", "--json", "--personas", ",".join(PERSONAS),
                           "--max-cycles", "1", QUESTION], input="", capture_output=True, text=True, timeout=540,
                          env={**os.environ, "NO_COLOR": "1"})
    print(f"council ask on the CLIs found on PATH: {time.monotonic() - start:.1f} s")
    assert done.returncode == 0, done.stderr[-3000:]
    s = json.loads(done.stdout)["session"]
    assert s["status"] == "completed" and s["finalAnswer"]
    seating = s["seating"]
    assert seating["found"] and seating["policy"] == "diverse" and seating["chair"]["provider"] == "claude"
    seat_of = {seat["persona"]: seat["model"]["provider"] for seat in seating["seats"]}
    assert sorted(seat_of.values()) == sorted(ON_PATH)  # one persona on each CLI found
    for response in s["responses"]:
        assert response["position"].endswith(f"[{seat_of[response['persona']]}]")
    assert s["synthesis"]["recommendation"].endswith("[claude]")
    assert set(s["metadata"]["callsByModel"]) == {f"{kind}:default" for kind in ON_PATH}

    said = done.stderr  # --json: what a person reads goes to stderr
    found_at = said.index(FOUND_LINE + "Claude Code, Gemini CLI and GitHub Copilot CLI; the moderator and the chair "
                                       "on Claude Code.")
    bills = said.index("Each call runs the CLI headless and is billed as your sign-in bills it: Claude Code uses your "
                       "Claude plan's usage limits")
    assert "GitHub Copilot CLI spends your Copilot plan's premium requests" in said
    assert "The council uses Claude Code on its default model." in said
    cost = said.index("on claude:default, 1 on gemini:default, 1 on copilot:default.")  # the calls per CLI
    first_call = said.index("The moderator reads your question")
    assert found_at < first_call and bills < first_call and cost < first_call, said
    for kind, fake in vendors.items():  # each CLI checked once, though the preflight and the seating both asked
        assert checks(fake) == 1, (kind, checks(fake))
    assert not marker.exists()


async def consult_without_sampling(tmp_path: Path) -> tuple[types.CallToolResult, list[str]]:
    messages: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        if message:
            messages.append(message)

    args = ["-m", "council", "mcp", "--no-embeddings", "--workspace", str(tmp_path)]
    async with council_mcp(args, tmp_path, tmp_path) as session:  # the SDK's client offers no sampling
        with anyio.fail_after(400):
            result = await session.call_tool("council_consult", {
                "user_problem": QUESTION, "depth": "brief", "selected_personas": PERSONAS[:2]},
                progress_callback=on_progress)
    return result, messages


def test_council_mcp_without_sampling_seats_the_clis_that_answer(path_with, vendors, tmp_path: Path):
    path_with(*ON_PATH)
    vendors["copilot"].status, vendors["copilot"].error = 401, "unauthorized: bad credentials"  # signed out
    result, messages = anyio.run(consult_without_sampling, tmp_path)
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert set(data["calls_by_model"]) == {"claude:default", "gemini:default"}, data["calls_by_model"]
    asked = [json.dumps(r.body) for r in vendors["copilot"].model_requests()]
    assert asked and not any(HEAD in body for body in asked)  # checked, failed, never seated
    found_line = next(m for m in messages if m.startswith("🔎"))
    assert "Claude Code and Gemini CLI; the moderator and the chair on Claude Code" in found_line, messages
    assert any("premium requests" not in m and "Gemini CLI uses the free tier" in m for m in messages), messages
    assert data["synthesis"]["recommendation"].endswith("[claude]")


async def seat_with(config: CouncilConfig):
    hub = ProviderHub(config)
    try:
        return await hub.seat(load_personas(), TurnParams(text=QUESTION, options=SessionOptions()), PERSONAS)
    finally:
        await hub.aclose()


def test_with_no_cli_on_path_the_selection_goes_on_as_before(path_with, monkeypatch: pytest.MonkeyPatch):
    path_with()  # no agent CLI on PATH
    found.forget()
    seating, chair = anyio.run(seat_with, CouncilConfig(ollama_url="http://127.0.0.1:9"))  # no Ollama either
    assert not seating.found and chair.id == "embedded" and seating.policy == "single"
    assert anyio.run(found.statuses) == {}


def test_found_clis_can_be_turned_off(path_with, vendors, monkeypatch: pytest.MonkeyPatch):
    path_with(*ON_PATH)
    found.forget()
    monkeypatch.setenv("COUNCIL_OLLAMA_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("COUNCIL_AGENT_CLIS", "0")
    seating, chair = anyio.run(seat_with, load_config())
    assert not seating.found and chair.id == "embedded"
    assert not any(fake.requests for fake in vendors.values())  # not even checked


def test_doctor_shows_the_check_that_seats_them(path_with, vendors):
    """``council doctor`` reads the sidecar's check (the one a council with no model configured seats by): each
    CLI found once, not among the providers, a signed-out one with its fix."""
    path_with(*ON_PATH)
    vendors["copilot"].status, vendors["copilot"].error = 401, "unauthorized: bad credentials"
    done = subprocess.run([sys.executable, "-m", "council", "doctor"], capture_output=True, text=True, timeout=180,
                          env={**os.environ, "NO_COLOR": "1"})
    out = done.stdout
    providers, clis = out.split("Agent CLIs on PATH")
    assert done.returncode == 0, out + done.stderr
    assert "[ok] claude     default" in clis and "[ok] gemini     default" in clis, out
    assert "[--] copilot    default" in clis and "GitHub Copilot CLI is not signed in: run `copilot login`" in clis
    assert "claude" not in providers and "Ready: " in clis and "claude" in clis.split("Ready: ")[1]
    for kind in ("claude", "gemini"):
        assert checks(vendors[kind]) == 1, kind
