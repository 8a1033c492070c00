"""Found, not configured: with no provider configured and no client model, ``council ask`` and ``council mcp`` seat
the council on the agent CLIs found on PATH that are signed in, by each CLI's own check and no model call — the real
CLIs, each pointed at its own vendor's scripted
model on 127.0.0.1 by its environment variables (Codex reads none, so it stays off this PATH) — spread as
``diverse`` spreads model families, the moderator and the chair on the first, and say so before the first call with
the calls per CLI and how each bills; the fake servers count what reached each model, so the calls made are the calls
said. A CLI on PATH that is signed out is left out without being started; one that passes its sign-in check but fails
its first call gives its seats to the chair's CLI, with one line saying so; with none on PATH, or with
``COUNCIL_AGENT_CLIS=0``, the selection goes on as before (a local Ollama, the embedded model)."""

from __future__ import annotations

import json
import os
import re
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
FOUND_LINE = ("No model is configured, so the council sits on the agent CLIs found on PATH that are signed in (their "
              "own checks, no model call): ")


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


def model_calls(fake: FakeModels) -> list[str]:
    """The requests that reached the CLI's model, each as its JSON body (Gemini CLI in auto mode first asks a router
    model, unanswered here: ``:generateContent``, not a call of the council's)."""
    return [json.dumps(r.body) for r in fake.model_requests() if ":generateContent" not in r.path]


def checks(fake: FakeModels) -> int:
    """The doctor's check prompts that reached the CLI's model."""
    return sum(CHECK in body for body in model_calls(fake))


def announced(said: str) -> dict[str, int]:
    """The calls per model the 💰 line announced before the first call (``2 on claude:default, 1 on …``)."""
    line = next(line for line in said.splitlines() if "💰" in line)
    return {model: int(n) for n, model in re.findall(r"(\d+) on ([\w-]+:default)", line)}


def never_started(home: Path) -> bool:
    """Copilot CLI never ran in this home: its first start unpacks itself into ``~/.cache/copilot`` and logs to
    ``~/.copilot/logs``."""
    return not (home / ".cache" / "copilot").exists() and not (home / ".copilot" / "logs").exists()


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
    calls = announced(said)
    print("announced:", calls)
    for kind, fake in vendors.items():  # no check prompt: each model got the calls the 💰 line said, no more
        assert checks(fake) == 0, (kind, checks(fake))
        assert len(model_calls(fake)) == calls[f"{kind}:default"], (kind, len(model_calls(fake)), calls)
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
                "user_problem": QUESTION, "depth": "brief", "selected_personas": PERSONAS},
                progress_callback=on_progress)
    return result, messages


def test_council_mcp_seat_whose_cli_fails_its_first_call_falls_back_with_one_line(path_with, vendors, tmp_path: Path):
    """Copilot CLI passes its sign-in check (its own provider is set) but its model refuses every call: it is seated,
    its first call fails, its seat moves to the chair's CLI with one line saying so, and the consult answers."""
    path_with(*ON_PATH)
    vendors["copilot"].status, vendors["copilot"].error = 401, "unauthorized: bad credentials"  # signed out
    result, messages = anyio.run(consult_without_sampling, tmp_path)
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    found_line = next(m for m in messages if m.startswith("🔎"))
    assert "Claude Code, Gemini CLI and GitHub Copilot CLI; the moderator and the chair on Claude Code" in found_line
    asked = model_calls(vendors["copilot"])
    assert asked and all(HEAD in body for body in asked)  # the seat's own call (its CLI's tries of it), no check
    fell = [m for m in messages if "⚠️" in m and "copilot" in m.lower()]
    assert len(fell) == 1 and "speaks with claude:default" in fell[0], messages  # one line: now on the chair's CLI
    assert data["synthesis"]["recommendation"].endswith("[claude]")
    assert not any(checks(vendors[kind]) for kind in ON_PATH)


def signed_out_of_copilot(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No sign-in Copilot CLI could use: no token variable, no own provider, no ``gh`` sign-in (an empty config)."""
    for var in ("COPILOT_PROVIDER_BASE_URL", "COPILOT_MODEL", "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GH_CONFIG_DIR", str(home / "no-gh-config"))
    found.forget()


@pytest.mark.parametrize(("config", "token", "signed_in"), [
    ({"loggedInUsers": [{"host": "https://github.com", "login": "octocat"}]}, "", True),
    ({"logged_in_users": [{"host": "https://github.com", "login": "octocat"}]}, "", True),  # before 1.0
    ({"loggedInUsers": []}, "", False),
    ({}, "GH_TOKEN", True),
    ({}, "COPILOT_GITHUB_TOKEN", True),
])
def test_copilot_cli_sign_in_is_read_from_its_config_and_tokens(path_with, vendors, home: Path, config, token,
                                                                 signed_in, monkeypatch: pytest.MonkeyPatch):
    """Copilot CLI has no status command: a user ``copilot login`` kept in its ``config.json``, or a token variable
    it signs in with, counts as signed in — read without starting it."""
    path_with("copilot")
    signed_out_of_copilot(home, monkeypatch)
    (home / ".copilot" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    if token:
        monkeypatch.setenv(token, "gho_not-a-real-token")
    status = anyio.run(found.statuses)["copilot"]
    assert status.available is signed_in, status.detail
    assert never_started(home)


def test_a_signed_out_cli_is_left_out_without_being_started(path_with, vendors, home: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    """Copilot CLI with no sign-in at all (no token variable, no user in its config, no own provider, no ``gh``):
    left out of the seats by its sign-in check alone, never started; the signed-in CLIs are seated without a call."""
    path_with(*ON_PATH)
    signed_out_of_copilot(home, monkeypatch)
    seating, chair = anyio.run(seat_with, load_config())
    assert seating.found and seating.chair.id == "claude:" and chair.id == "claude"
    assert sorted({seat.model.provider for seat in seating.seats}) == ["claude", "gemini"]
    assert never_started(home)
    assert not any(fake.model_requests() for fake in vendors.values())  # seated without a model call
    status = anyio.run(found.statuses)["copilot"]
    assert not status.available and "GitHub Copilot CLI is not signed in: run `copilot login`" in status.detail


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
    """``council doctor`` asks each CLI found one tiny prompt, after saying how many calls that is (a council with no
    model configured seats by the sign-in check alone): each CLI found once, not among the providers, one whose
    model refuses with its fix."""
    path_with(*ON_PATH)
    vendors["copilot"].status, vendors["copilot"].error = 401, "unauthorized: bad credentials"
    done = subprocess.run([sys.executable, "-m", "council", "doctor"], capture_output=True, text=True, timeout=180,
                          env={**os.environ, "NO_COLOR": "1"})
    out = done.stdout
    says = out.index("Checks each agent CLI by asking it one tiny prompt (“Reply with the word OK.”): at most 3 model "
                     "call(s)")
    assert says < out.index("Agent CLIs on PATH"), out  # said before the calls' results
    providers, clis = out.split("Agent CLIs on PATH")
    assert done.returncode == 0, out + done.stderr
    assert "[ok] claude     default" in clis and "[ok] gemini     default" in clis, out
    assert "[--] copilot    default" in clis and "GitHub Copilot CLI is not signed in: run `copilot login`" in clis
    assert "claude" not in providers and "Ready: " in clis and "claude" in clis.split("Ready: ")[1]
    for kind in ("claude", "gemini"):
        assert checks(vendors[kind]) == 1, kind
