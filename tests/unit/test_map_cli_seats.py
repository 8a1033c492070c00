"""``council.models`` naming agent-CLI seats (issue 32): how the sidecar reads a persona → model map's values — a
client model's id first, else a ``--models`` spec of an agent CLI — with hostile and near-miss values, and the seats
lines in both languages. No model is called: seating only looks for the CLI on PATH (the headless test in
``tests/agent_clis/test_vscode_seats.py`` runs the real CLI)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from council.config import CouncilConfig
from council.personas.loader import load_personas
from council.present.cost import fell_back
from council.present.cost import seating as seating_words
from council.protocol.methods import ClientCapabilities, SessionOptions, TurnParams
from council.provider_hub import ProviderHub
from council.session.state.seating import ModelChoice
from council.words import speaking

COUNCIL = ["Software Architect", "Security Expert", "Devil's Advocate", "Senior Developer"]
ALPHA = {"id": "alpha/one", "vendor": "alpha-labs", "family": "alpha-1", "name": "Alpha One"}
ODD = {"id": "gemini:flash", "vendor": "odd", "family": "odd-1", "name": "Odd"}  # a chat model's id in spec shape
CLIENT = ClientCapabilities(completion=True, completion_model="Alpha One", models=[ALPHA, ODD],
                            chat_model_id="alpha/one")


class NoBridge:
    async def complete(self, params, on_delta):  # seating makes no call
        raise AssertionError("seating called a model")


@pytest.fixture
def only_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH holds an executable named ``claude`` (never run here) and no other agent CLI."""
    folder = tmp_path / "bin"
    folder.mkdir()
    claude = folder / "claude"
    claude.write_text("#!/bin/sh\nexit 1\n")
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))
    return folder


def seat_map(mapping: dict[str, str]):
    async def run():
        hub = ProviderHub(CouncilConfig(), NoBridge())
        try:
            params = TurnParams(text="Should we?", client=CLIENT,
                                options=SessionOptions(provider="client", seating=mapping))
            return (await hub.seat(load_personas(), params, COUNCIL))[0]
        finally:
            await hub.aclose()
    return anyio.run(run)


def test_a_map_value_reads_as_a_client_model_first_then_as_an_agent_cli_spec(only_claude: Path):
    seating = seat_map({"Software Architect": "claude:claude-sonnet-4-6", "security expert": "claude:",
                        "Devil's Advocate": "gemini:flash", "Senior Developer": "codex:gpt-5.1-codex"})
    seats = {s.persona: s.model for s in seating.seats}
    assert seating.policy == "map" and seating.chair.id == "alpha/one"
    assert (seats["Software Architect"].provider, seats["Software Architect"].model) == ("claude", "claude-sonnet-4-6")
    assert seats["Security Expert"].label == "claude:default"  # the CLI's own default model
    assert seats["Devil's Advocate"].provider == "client"  # a chat model's id wins over the spec it looks like
    assert seats["Senior Developer"].id == "alpha/one"  # Codex is not on PATH
    [miss] = seating.misses
    assert (miss.persona, miss.reason, miss.model_id) == ("Senior Developer", "cli_not_installed",
                                                          "codex:gpt-5.1-codex")
    assert miss.detail.startswith("Codex is not installed: install it (npm install -g @openai/codex)")
    words = seating_words(seating)
    assert "Software Architect → claude:claude-sonnet-4-6; Security Expert → claude:default" in words, words
    assert ("Senior Developer → “codex:gpt-5.1-codex”: Codex is not installed: install it (npm install -g "
            "@openai/codex) or put `codex` on PATH, so Senior Developer speaks with Alpha One") in words, words
    assert words.count("💳") == 1 and "Claude Code uses your Claude plan" in words and "ChatGPT" not in words
    with speaking("ru"):  # a Russian session's turn runs in Russian: its seating's fix is written in it
        ru = seating_words(seat_map({"Senior Developer": "codex:gpt-5.1-codex", "Software Architect": "claude:x"}))
    assert ("Карта мест применена не полностью: Senior Developer → «codex:gpt-5.1-codex»: Codex не установлен: "
            "установите его (npm install -g @openai/codex)") in ru, ru
    assert "Claude Code расходует лимиты вашего плана Claude" in ru, ru


HOSTILE = ["claude:--dangerously-skip-permissions", "claude:-p", "gemini:--yolo", "claude:a b", "claude:x\n--yolo",
           "codex:-c", "claude:ü"]


@pytest.mark.parametrize("value", ["openai:gpt-4o", "nonesuch:model", "claude", "gemini", ":", "claude :x:y",
                                   "client:alpha/one", " claude:sonnet", "claude:claude-sonnet-4-6[1m]", *HOSTILE])
def test_values_that_name_no_agent_cli_stay_misses_and_are_never_refused(only_claude: Path, value: str):
    """A value that is no chat model's id and no agent CLI's spec (another provider, no colon, an unknown name, the
    client, a model name the CLI would read as an option or as two arguments: a workspace's settings can hold the
    map) is the miss it always was; a spec with spaces around the CLI's name still names it."""
    seating = seat_map({"Security Expert": value})
    seat = next(s for s in seating.seats if s.persona == "Security Expert")
    if value.split(":", 1)[0].strip() == "claude" and ":" in value and value not in HOSTILE:
        assert seat.model.provider == "claude" and not seating.misses
    else:
        assert seat.model.id == "alpha/one"
        [miss] = seating.misses
        assert miss.reason == "model_not_offered" and miss.model_id == value


def test_a_cli_seats_fallback_line_names_the_clis_fix(only_claude: Path):
    claude = ModelChoice(id="claude:sonnet", provider="claude", model="sonnet", vendor="claude")
    chat = ModelChoice(id="alpha/one", provider="client", model="Alpha One")
    fix = "Claude Code is not signed in: run `claude auth login` once in a terminal and sign in, then try again"
    assert fell_back(["Security Expert"], claude, chat, "model_failed", fix + "\n(401)") == (
        f"_⚠️ claude:sonnet cannot be used ({fix} (401)): Security Expert speaks with Alpha One from now on._\n\n")
    other = ModelChoice(id="beta/two", provider="client", model="Beta Two")  # a chat model: the plain reason
    assert "(it failed)" in fell_back(["Security Expert"], other, chat, "model_failed", "HTTP 500 from the client")
    assert os.environ["PATH"] == str(only_claude)


def test_in_restricted_mode_a_workspaces_council_models_is_ignored():
    """The map can run a program (an agent CLI) and send the question to its vendor: like the other settings that
    do, a workspace's value is ignored until the workspace is trusted (VS Code's ``restrictedConfigurations``), and
    the setting's description says how to write a CLI seat."""
    import json

    package = json.loads((Path(__file__).resolve().parents[2] / "package.json").read_text(encoding="utf-8"))
    assert "council.models" in package["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]
    described = package["contributes"]["configuration"]["properties"]["council.models"]["markdownDescription"]
    assert "`<cli>:<model>`" in described and "Restricted Mode" in described


@pytest.mark.parametrize("spec", ["claude:--dangerously-skip-permissions", "gemini:-y", "codex:a b"])
def test_a_models_spec_whose_cli_model_reads_as_an_option_is_refused(only_claude: Path, spec: str):
    """``--models`` (and a restored seat) take the same parser: the CLI would read such a model as its own option."""
    from council.errors import CouncilError

    async def run():
        hub = ProviderHub(CouncilConfig())
        try:
            await hub.seat(load_personas(), TurnParams(text="Should we?", options=SessionOptions(models=[spec])),
                           COUNCIL)
        finally:
            await hub.aclose()

    with pytest.raises(CouncilError) as refused:
        anyio.run(run)
    assert refused.value.code == "validation" and "is no model name" in refused.value.message

