"""A whole council on the real agent CLIs: ``council ask --models claude:…,gemini:…,codex:…,copilot:…`` runs every
seat through the real CLI, each against its own vendor's scripted model on 127.0.0.1 (:mod:`.council_model`), whose
first reply is a tool call (run a shell command, write a file). The seats spread over the four CLIs, each persona's
text comes from its own CLI's server and names its model, nothing runs or is written, each call's usage reaches
the session, and the answer comes back."""

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

import pytest

from council.session.calls.formats import HEAD

from .council_model import council_reply
from .fake_models import FakeModels, serving

QUESTION = "Should we split our monolith into services this quarter?"
PERSONAS = ["Software Architect", "Senior Developer", "Devil's Advocate", "Security Expert"]
# one model lineage per CLI (Copilot serves several vendors' models: grok here, so the four spread apart)
SPECS = {"claude": "claude-sonnet-4-6", "gemini": "gemini-2.5-flash", "codex": "gpt-5.5",
         "copilot": "grok-code-fast-1"}
SEAT_DEADLINE = 180


@pytest.fixture
def vendors(home: Path, marker: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, tuple[FakeModels, str]]]:
    """Each vendor's scripted model on its own port, its first reply a tool call; each CLI pointed at its own the way
    its users do: Claude Code, Gemini CLI and Copilot CLI by their environment variables, Codex (which reads no
    variable for it) by a ``--config`` provider (``COUNCIL_CONFIG``)."""
    with ExitStack() as stack:
        found = {}
        for kind in SPECS:
            fake = FakeModels(marker=marker, tool_calls=1, answer=partial(council_reply, kind))
            found[kind] = (fake, stack.enter_context(serving(fake)))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", found["claude"][1])
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", found["gemini"][1])
        monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", found["copilot"][1] + "/v1")
        config = home.parent / "council.toml"
        config.write_text(f'[providers.codex]\nkind = "codex"\nbase_url = "{found["codex"][1]}/v1"\n'
                          f"options = {{ deadline = {SEAT_DEADLINE} }}\n")
        monkeypatch.setenv("COUNCIL_CONFIG", str(config))
        yield found


def ask(*args: str, timeout: float = 540) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "council", "ask", "--yes", "--json", *args], input="",
                          capture_output=True, text=True, timeout=timeout, env={**os.environ, "NO_COLOR": "1"})
    return done, time.monotonic() - start


def model_named(kind: str, fake: FakeModels) -> bool:
    """Whether every request of Council's that ``fake`` got names the spec's model (Gemini names it in the path); a
    configured provider's check, before the session, asks the CLI's default model for "OK"."""
    asked = [r for r in fake.model_requests() if HEAD in json.dumps(r.body)]
    return bool(asked) and all(SPECS[kind] in json.dumps(r.body) + r.path for r in asked)


def test_a_whole_council_runs_on_the_four_real_clis(vendors, marker: Path):
    models = ",".join(f"{kind}:{model}" for kind, model in SPECS.items())
    done, took = ask("--models", models, "--personas", ",".join(PERSONAS), "--max-cycles", "1", QUESTION)
    print(f"council ask on the four real CLIs: {took:.1f} s")
    assert done.returncode == 0, done.stderr[-3000:]
    snapshot = json.loads(done.stdout)
    s = snapshot["session"]
    assert s["status"] == "completed" and s["finalAnswer"]

    seating = s["seating"]
    assert seating["chair"]["provider"] == "claude" and seating["policy"] == "diverse"
    seat_of = {seat["persona"]: seat["model"] for seat in seating["seats"]}
    assert sorted(m["provider"] for m in seat_of.values()) == sorted(SPECS)  # one persona on each CLI
    for response in s["responses"]:  # each persona's text came from its own CLI's server
        kind = seat_of[response["persona"]]["provider"]
        assert response["position"].endswith(f"[{kind}]"), (response["persona"], response["position"])
    assert s["synthesis"]["recommendation"].endswith("[claude]")  # the chair sits on the first spec's CLI
    for persona, model in seat_of.items():  # the transcript's headings name each persona's model
        assert f"#### {persona} · _{model['provider']}:{SPECS[model['provider']]}_" in snapshot["transcriptMarkdown"]

    for kind, (fake, _) in vendors.items():
        requests = fake.model_requests()
        assert requests, f"{kind}'s server got no request"
        assert model_named(kind, fake), [(r.path, r.body.get("model")) for r in requests]
    assert not marker.exists(), f"a tool ran or wrote: {marker.read_text()}"

    meta = s["metadata"]
    labels = {f"{kind}:{model}" for kind, model in SPECS.items()}
    assert set(meta["callsByModel"]) == labels
    spent = meta["spentByModel"]
    assert spent["claude:claude-sonnet-4-6"]["costUsd"] > 0 and spent["claude:claude-sonnet-4-6"]["inputTokens"] > 0
    assert spent["codex:gpt-5.5"]["outputTokens"] > 0 and spent["gemini:gemini-2.5-flash"]["outputTokens"] > 0
    assert spent["copilot:grok-code-fast-1"]["premiumRequests"] == 0  # BYOK: no premium requests
    assert "Reported by the models: " in snapshot["transcriptMarkdown"]
