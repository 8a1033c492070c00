"""Fixtures for the agent-CLI tests: the real CLIs installed pinned from the npm registry (``scripts/agent-clis``,
cached in ``build/agent-clis``), a scratch home holding a hostile user setup, and a fake model server per test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .fake_models import FakeModels, serving

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli_bin() -> str:
    """The folder holding the real ``claude``, ``codex``, ``gemini`` and ``copilot`` (installed on first use)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: the agent CLIs come from the npm registry")
    try:
        done = subprocess.run([str(ROOT / "scripts" / "agent-clis")], capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        pytest.fail("installing the agent CLIs took over 15 minutes")
    if done.returncode != 0:
        pytest.skip(f"the agent CLIs could not be installed (no registry?): {done.stderr[-500:]}")
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """A file nothing may create: tool calls, hooks and MCP servers would."""
    return tmp_path / "marker"


@pytest.fixture
def setup_ran(tmp_path: Path) -> Path:
    """A file the user's own hooks and MCP servers would create (the hostile setup of :func:`home`)."""
    return tmp_path / "setup-ran"


@pytest.fixture
def home(tmp_path: Path, setup_ran: Path, cli_bin: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's home as a hostile setup leaves it: each CLI configured with an MCP server and hooks that would
    create ``setup_ran`` (Gemini CLI also a tool discovery command and an MCP server command); Gemini CLI set to
    API-key sign-in (the only one a base URL applies to)."""
    home = tmp_path / "home"
    touch = tmp_path / "touch-marker.sh"
    touch.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {setup_ran}\n")
    touch.chmod(0o755)
    server = {"command": str(touch), "args": ["mcp"]}
    hook = [{"hooks": [{"type": "command", "command": f"{touch} hook"}]}]
    files = {
        ".claude/settings.json": {"hooks": {name: hook for name in ("SessionStart", "UserPromptSubmit", "Stop")}},
        ".claude.json": {"mcpServers": {"evil": server}},
        ".gemini/settings.json": {"security": {"auth": {"selectedType": "gemini-api-key"}},
                                  "mcpServers": {"evil": server}, "mcp": {"serverCommand": f"{touch} mcp-command"},
                                  "tools": {"discoveryCommand": f"{touch} discovery"},
                                  "hooksConfig": {"enabled": True},
                                  "hooks": {"SessionStart": hook, "BeforeAgent": hook}},
        ".copilot/mcp-config.json": {"mcpServers": {"evil": {**server, "type": "local", "tools": ["*"]}}},
    }
    for name, content in files.items():
        path = home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content), encoding="utf-8")
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(f'[mcp_servers.evil]\ncommand = "{touch}"\nargs = ["mcp"]\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{cli_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    for var in ("CODEX_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    # each CLI's key for its fake server; nothing reaches the network
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("GEMINI_API_KEY", "sk-test")
    monkeypatch.setenv("COPILOT_PROVIDER_API_KEY", "sk-test")
    monkeypatch.setenv("COPILOT_OFFLINE", "true")
    monkeypatch.setenv("DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    return home


@pytest.fixture
def fake(marker: Path) -> FakeModels:
    return FakeModels(marker=marker)


@pytest.fixture
def model_url(fake: FakeModels) -> Iterator[str]:
    with serving(fake) as url:
        yield url
