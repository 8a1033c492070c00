"""The plugin path end to end: the real Claude Code (``claude -p``) is the MCP host, with the Council plugin installed
the way a user installs it (``claude plugin marketplace add`` this repository, ``claude plugin install
council@council``), in a scratch home. Its model is a scripted fake Messages server on 127.0.0.1 that drives the host
as a model would: it loads the plugin's deferred consult tool through ``ToolSearch``, calls it, and then reads the tool
result. The plugin's ``council mcp`` gets no sampling from Claude Code, so the consult seats the personas on the
agent CLIs found on PATH — the same real ``claude``, and the real ``gemini`` against its own fake server — and their
requests are answered by :mod:`.council_model`'s scripted vendors.

What must hold: the council's answer reaches the host's model (in the request after the tool call), the seats ran on
two vendors' CLIs, no seat loaded Council again (the seats' requests offer no tools at all, ``council mcp`` started
once, never under ``COUNCIL_SEAT``), and nothing was written in the workspace the host works in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from council.session.calls.formats import HEAD

from .council_model import council_reply
from .fake_models import USAGE_IN, USAGE_OUT, FakeModels, serving

pytestmark = pytest.mark.slow  # a whole consult through three real CLIs: about a minute on 2 cores

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugins" / "council"
QUESTION = "Should we split our monolith into services this quarter?"
PERSONAS = ["Software Architect", "Devil's Advocate"]
SEATED = ("claude", "gemini")  # the CLIs on PATH: two vendors
HOST_DEADLINE = 420
FINAL = "The council has answered."


def consult_tool() -> str:
    """The consult tool's name as Claude Code exposes a plugin's MCP tool: ``mcp__plugin_<plugin>_<server>__<tool>``."""
    plugin = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))["name"]
    (server,) = json.loads((PLUGIN / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    return f"mcp__plugin_{plugin}_{server}__council_consult"


def tool_names(body: dict[str, Any]) -> list[str]:
    return [str(t.get("name") or t.get("type")) for t in body.get("tools") or []]


def tool_results(body: dict[str, Any]) -> dict[str, str]:
    """tool_use id → the text of its tool_result, over the request's messages."""
    found: dict[str, str] = {}
    for message in body.get("messages") or []:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                text = inner if isinstance(inner, str) else "".join(
                    part.get("text", "") for part in inner or [] if isinstance(part, dict))
                found[str(block.get("tool_use_id"))] = text
    return found


class HostAndSeats(FakeModels):
    """One Messages server for both Claude Codes: the host (its requests offer Claude Code's tools) is scripted to
    load and call the consult tool; a seat's ``claude -p`` (offered no tools) gets the scripted vendor's reply."""

    def __init__(self, consult: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.consult = consult

    @staticmethod
    def is_host(body: dict[str, Any]) -> bool:
        return "ToolSearch" in tool_names(body)

    def host_turn(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The tool the host's model calls next (None: it answers in text)."""
        results = tool_results(body)
        if "toolu_consult" in results:
            return None
        if self.consult in tool_names(body):
            return self.consult, {"user_problem": QUESTION, "depth": "brief", "selected_personas": PERSONAS}
        if "toolu_search" in results:
            return None  # ToolSearch did not load it: stop, the test fails on what the host saw
        return "ToolSearch", {"query": f"select:{self.consult}", "max_results": 5}

    def reply(self, body: dict[str, Any]) -> str:
        return FINAL if self.is_host(body) else council_reply("claude", body)

    def anthropic(self, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        call = self.host_turn(body) if self.is_host(body) else None
        if call is None:
            yield from super().anthropic(body)
            return
        name, args = call
        tool_id = "toolu_consult" if name == self.consult else "toolu_search"
        yield "message_start", {"type": "message_start", "message": {
            "id": f"msg_{tool_id}", "type": "message", "role": "assistant", "model": body.get("model", "claude"),
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": USAGE_IN, "output_tokens": 1}}}
        yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": tool_id, "name": name, "input": {}}}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": json.dumps(args)}}
        yield "content_block_stop", {"type": "content_block_stop", "index": 0}
        yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                "usage": {"output_tokens": USAGE_OUT}}
        yield "message_stop", {"type": "message_stop"}


def claude(*args: str, env: dict[str, str], cwd: Path, timeout: float = 120, stdin: str = "") -> str:
    done = subprocess.run([str(Path(env["AGENT_BIN"]) / "claude"), *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=cwd)
    assert done.returncode == 0, f"claude {' '.join(args)}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def council_log(home: Path) -> str:
    """What the plugin's ``council mcp`` wrote on stderr (its INFO log: the CLIs found and whether each answered),
    from the log Claude Code keeps of its MCP servers."""
    lines = []
    for log in sorted(home.glob(".cache/claude-cli-nodejs/*/mcp-logs-plugin-council-council/*.jsonl")):
        for line in log.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            lines.append(str(entry.get("error") or entry.get("debug") or entry))
    return "\n".join(lines)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>" for p in folder.rglob("*")}


@pytest.fixture
def host_env(tmp_path: Path, cli_bin: str) -> dict[str, str]:
    """A user's shell: a scratch home with Gemini CLI signed in by API key, PATH holding ``council`` (this tree's,
    as the wheel's script starts it) and two agent CLIs, each CLI pointed at its fake server later."""
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {
        "selectedType": "gemini-api-key"}}}), encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for kind in SEATED:
        (bin_dir / kind).symlink_to(Path(cli_bin) / kind)
    starts = tmp_path / "council-starts.log"
    council = bin_dir / "council"  # what the wheel's console script does, with this tree's sources
    council.write_text(f'#!/bin/sh\necho "${{COUNCIL_SEAT:-host}} $*" >> "{starts}"\n'
                       f'PYTHONPATH="{ROOT / "server"}" exec "{sys.executable}" -m council "$@"\n')
    council.chmod(0o755)
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and Path(p).resolve() != Path(cli_bin).resolve()]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COUNCIL_", "ANTHROPIC_", "GOOGLE_", "GEMINI_",
                                                                     "OPENAI_", "CODEX_", "COPILOT_", "CLAUDE"))}
    env.update({
        "HOME": str(home), "PATH": os.pathsep.join([str(bin_dir), *rest]), "AGENT_BIN": str(bin_dir),
        "ANTHROPIC_API_KEY": "sk-test", "GEMINI_API_KEY": "sk-test",
        "COUNCIL_AGENT_CLIS": "1",  # tests/conftest.py turns the found CLIs off suite-wide; a user has them on
        "MCP_CONNECTION_NONBLOCKING": "0",  # -p: wait for the plugin's server before the first turn
        "MCP_TOOL_TIMEOUT": str(HOST_DEADLINE * 1000),  # the README's advice: a consult takes longer than 60 s
        "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_MAX_RETRIES": "0", "NO_COLOR": "1",
        "COUNCIL_STARTS": str(starts)})
    for var in ("PYTHONPATH", "XDG_CONFIG_HOME"):
        env.pop(var, None)
    return env


def test_claude_code_consults_the_council_whose_seats_run_on_the_agent_clis(host_env, tmp_path: Path):
    consult = consult_tool()
    host = HostAndSeats(consult)
    gemini = FakeModels(answer=partial(council_reply, "gemini"))
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Our monolith\nTwelve teams share one deploy.\n", encoding="utf-8")
    before = snapshot(workspace)
    with serving(host) as host_url, serving(gemini) as gemini_url:
        env = {**host_env, "ANTHROPIC_BASE_URL": host_url, "GOOGLE_GEMINI_BASE_URL": gemini_url}
        claude("plugin", "marketplace", "add", str(ROOT), env=env, cwd=tmp_path)  # as the README says
        claude("plugin", "install", "council@council", env=env, cwd=tmp_path)
        start = time.monotonic()
        out = claude("-p", "--output-format", "stream-json", "--verbose", "--allowedTools", consult,
                     env=env, cwd=workspace, timeout=HOST_DEADLINE + 60,
                     stdin=f"Ask the council: {QUESTION}")
        print(f"claude -p → council_consult → seats on {', '.join(SEATED)}: {time.monotonic() - start:.1f} s")
    print("council mcp, as Claude Code logged it:\n" + council_log(Path(host_env["HOME"]))[-4000:])
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    init = next(e for e in events if e.get("type") == "system" and e.get("subtype") == "init")
    print("the host's MCP servers:", init.get("mcp_servers"), "its council tools:",
          [t for t in init.get("tools", []) if "council" in t])
    assert consult in init.get("tools", []), init.get("mcp_servers")

    hosts = [r.body for r in host.model_requests() if HostAndSeats.is_host(r.body)]
    seats = [r.body for r in host.model_requests() if not HostAndSeats.is_host(r.body)]
    answered = [tool_results(body)["toolu_consult"] for body in hosts if "toolu_consult" in tool_results(body)]
    assert answered, f"the consult's result never reached the host's model; results: {[tool_results(b) for b in hosts]}"
    answer = answered[-1]
    print("the council's answer as the host's model read it:\n" + answer[:3000])
    assert "[claude]" in answer, answer[:3000]  # the chair's recommendation, written by the claude seat's server
    assert "error" not in answer[:200].lower(), answer[:3000]
    for kind in SEATED:  # the answer names the seats' models: one persona on each CLI
        assert f'"{kind}:default"' in answer, (kind, answer[-800:])
    result = next(e for e in events if e.get("type") == "result")
    assert not result.get("is_error") and result.get("result") == FINAL, result

    council_seats = [body for body in seats if HEAD in json.dumps(body)]
    gemini_seats = [r for r in gemini.model_requests() if HEAD in json.dumps(r.body)]
    assert council_seats and gemini_seats, (len(council_seats), len(gemini_seats))  # seats on two vendors' CLIs
    for body in seats:  # no seat's claude loaded Council (or anything) again
        assert tool_names(body) == [] and "mcp__" not in json.dumps(body), tool_names(body)
    starts = Path(host_env["COUNCIL_STARTS"]).read_text(encoding="utf-8").splitlines()
    assert starts == ["host mcp"], starts

    assert snapshot(workspace) == before, sorted(set(snapshot(workspace)) ^ set(before))
