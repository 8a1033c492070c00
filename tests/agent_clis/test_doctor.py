"""``council doctor`` on CLIs that cannot answer: each says why in one line with its fix, found before a model call
where the CLI can tell (``codex login status``, ``claude auth status``, Gemini CLI's settings and variables), else
from the check's call (Gemini CLI's exit status 41) — never "timed out" for a CLI that is only signed out. Copilot
CLI on its own provider (``COPILOT_PROVIDER_BASE_URL``) with no model named says to name one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from council.config import ProviderConfig
from council.providers.agent_cli import AgentCliProvider
from council.providers.registry import build_provider

KINDS = ("claude", "codex", "gemini", "copilot")


@pytest.fixture
def signed_out(home: Path, cli_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The four real CLIs alone on PATH, none signed in: no keys, Gemini CLI set to a Google sign-in it has no
    credentials for, Copilot CLI on its own provider with no model."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for kind in KINDS:
        (folder / kind).symlink_to(Path(cli_bin) / kind)
    rest = [p for p in os.environ["PATH"].split(os.pathsep) if p and Path(p).resolve() != Path(cli_bin).resolve()]
    monkeypatch.setenv("PATH", os.pathsep.join([str(folder), *rest]))
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CODEX_API_KEY", "GEMINI_API_KEY", "COPILOT_MODEL",
                "COPILOT_PROVIDER_MODEL_ID", "COUNCIL_CONFIG", "COUNCIL_PROVIDER", "COUNCIL_AGENT_CLIS"):
        monkeypatch.delenv(var, raising=False)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {
        "selectedType": "oauth-personal"}}}), encoding="utf-8")
    monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("COUNCIL_OLLAMA_URL", "http://127.0.0.1:9")
    return folder


def test_doctor_says_signed_out_with_the_fix_not_timed_out(signed_out: Path):
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "council", "doctor"], capture_output=True, text=True, timeout=240,
                          env={**os.environ, "NO_COLOR": "1"})
    took = time.monotonic() - start
    assert "Agent CLIs on PATH" in done.stdout, done.stdout + done.stderr
    clis = done.stdout.split("Agent CLIs on PATH")[1]
    lines = {line.split()[1]: line for line in clis.splitlines() if line.strip().startswith("[")}
    assert set(lines) == set(KINDS), done.stdout + done.stderr
    assert "Claude Code is not signed in: run `claude auth login`" in lines["claude"], lines["claude"]
    assert "Codex is not signed in: run `codex login`" in lines["codex"], lines["codex"]
    assert "Gemini CLI is not signed in: run `gemini`" in lines["gemini"], lines["gemini"]
    assert ("GitHub Copilot CLI uses your own model provider (COPILOT_PROVIDER_BASE_URL), which needs a model "
            "named: set COPILOT_MODEL, or seat `copilot:<model>`") in lines["copilot"], lines["copilot"]
    assert all(line.lstrip().startswith("[--]") and "did not finish" not in line for line in lines.values())
    assert not any(kind in done.stdout.split("Ready: ")[-1] for kind in KINDS)  # none of them counts as working
    assert took < 25, f"the doctor waited {took:.1f} s: a CLI was left to run into its deadline"


def check(kind: str, **cfg) -> str:
    provider = build_provider(ProviderConfig(kind=kind, options={"deadline": 60}, **cfg))  # type: ignore[arg-type]
    assert isinstance(provider, AgentCliProvider)
    status = anyio.run(provider.check)
    assert not status.available
    return status.detail


def test_a_cli_with_no_sign_in_at_all_is_told_so_without_a_model_call(signed_out: Path, home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    (home / ".gemini" / "settings.json").write_text("{}", encoding="utf-8")  # no sign-in picked anywhere
    start = time.monotonic()
    detail = check("gemini")
    assert detail.startswith("Gemini CLI is not signed in: run `gemini`") and "selectedType" in detail, detail
    assert time.monotonic() - start < 2  # read from its settings, not from a run of the CLI
    monkeypatch.delenv("COPILOT_PROVIDER_BASE_URL")
    byok = {"base_url": "http://127.0.0.1:9/v1"}  # Copilot CLI's own provider by Council's config, no model
    assert "which needs a model named: set COPILOT_MODEL" in check("copilot", **byok)
    monkeypatch.setenv("COPILOT_MODEL", "gpt-5.5")  # named: Copilot CLI gets as far as its (absent) server
    assert "needs a model named" not in check("copilot", **byok)
