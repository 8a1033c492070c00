"""Seats on the real agent CLIs (Claude Code, Codex, Gemini CLI, Copilot CLI), each pointed at a fake model server on
127.0.0.1 through its own configuration: the reply comes back (streamed where the CLI streams), usage is read, the
prompt goes on stdin, and a model that answers with tool calls gets nothing run and nothing written — nor do the
hostile user setup's hooks and MCP servers start."""

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
from council.providers.agent_cli import AgentCliError, AgentCliProvider
from council.providers.base import ChatMessage, CompletionRequest
from council.providers.registry import build_provider

from .fake_models import USAGE_IN, USAGE_OUT, FakeModels

KINDS = ("claude", "codex", "gemini", "copilot")
MODELS = {"claude": "claude-sonnet-4-6", "codex": "gpt-5.5", "gemini": "gemini-2.5-flash", "copilot": "gpt-5.5"}
API_PATH = {"claude": "", "codex": "/v1", "gemini": "", "copilot": "/v1"}
STREAMS = {"claude", "gemini", "copilot"}  # Codex's JSONL events carry the reply whole
PROMPT = "Weigh option A against option B — token 7f3c."
SYSTEM = "You are the Skeptic — system token 41d9."


def seat(kind: str, url: str, **options) -> AgentCliProvider:
    cfg = ProviderConfig(kind=kind, model=MODELS[kind], base_url=url + API_PATH[kind], timeout=60,
                         options={"deadline": 120, **options})
    provider = build_provider(cfg)
    assert isinstance(provider, AgentCliProvider)
    return provider


def ask() -> CompletionRequest:
    return CompletionRequest(purpose="skeptic", messages=[ChatMessage(role="system", content=SYSTEM),
                                                          ChatMessage(role="user", content=PROMPT)])


async def chunks_of(provider: AgentCliProvider) -> list[str]:
    return [chunk async for chunk in provider.stream(ask())]


def offered_tools(kind: str, body: dict) -> list[str]:
    tools = body.get("tools") or []
    if kind == "gemini":
        return [f["name"] for t in tools for f in t.get("functionDeclarations", [])]
    if kind == "copilot":
        return [t.get("function", {}).get("name") or t.get("name") or t.get("type") for t in tools]
    return [t.get("name") or t.get("type") for t in tools]


@pytest.mark.parametrize("kind", KINDS)
def test_seat_answers_through_the_real_cli(kind, home, fake: FakeModels, model_url, marker: Path):
    provider = seat(kind, model_url)
    chunks = anyio.run(chunks_of, provider)
    assert "".join(chunks) == fake.text
    if kind in STREAMS:
        assert len(chunks) >= 2, chunks  # streamed as the model wrote it
    usage = provider.last_usage
    assert usage is not None
    if kind == "copilot":
        assert usage.premium_requests == 0  # BYOK: Copilot reports premium requests, not tokens
    else:
        assert (usage.input_tokens, usage.output_tokens) == (USAGE_IN, USAGE_OUT)
    if kind == "claude":
        assert usage.cost_usd is not None and usage.cost_usd > 0
    requests = fake.model_requests()
    assert requests, "the CLI never reached the fake model server"
    sent = json.dumps(requests[0].body, ensure_ascii=False)
    assert "token 7f3c" in sent and "system token 41d9" in sent  # prompt and system text reached the model
    assert MODELS[kind] in sent + requests[0].path  # Gemini names the model in the path
    argv = " ".join(provider.argv(ask(), home))
    assert "7f3c" not in argv and "41d9" not in argv  # the prompt travels on stdin only


@pytest.mark.parametrize("kind", KINDS)
def test_user_hooks_and_mcp_servers_stay_out(kind, home, fake: FakeModels, model_url, setup_ran: Path):
    assert "".join(anyio.run(chunks_of, seat(kind, model_url))) == fake.text
    assert not setup_ran.exists(), setup_ran.read_text()  # no hook, no MCP server of the user's setup ran


@pytest.mark.parametrize("kind", KINDS)
def test_tool_calls_run_nothing_and_write_nothing(kind, home, fake: FakeModels, model_url, marker: Path):
    fake.tool_calls = 1
    provider = seat(kind, model_url)
    text = "".join(anyio.run(chunks_of, provider))
    assert text == fake.text  # the CLI refused the calls and the model answered in words
    assert len(fake.model_requests()) == 2  # the tool turn, then the text turn
    assert not marker.exists(), f"something ran or wrote: {marker.read_text()}"
    for request in fake.model_requests():  # no tool offered, in either turn
        assert offered_tools(kind, request.body) == [], (request.path, offered_tools(kind, request.body))


@pytest.mark.parametrize("model", ["gpt-5.5", "gpt-6-astra", "a-model-codex-does-not-know"])
def test_codex_offers_no_tool_on_any_model_and_runs_none(model, home, fake: FakeModels, model_url, marker: Path):
    """Codex's own tools are set per model in its catalog (``apply_patch``; code mode, subagents and experimental
    tools on the GPT-6 models): whatever model a seat names, the model is offered none, and the shell command,
    exec command and patch it calls anyway are answered as unsupported, not run."""
    fake.tool_calls = 1
    provider = build_provider(ProviderConfig(kind="codex", model=model, base_url=model_url + "/v1", timeout=60,
                                             options={"deadline": 120}))
    assert "".join(anyio.run(chunks_of, provider)) == fake.text
    first, second = fake.model_requests()
    assert [offered_tools("codex", r.body) for r in (first, second)] == [[], []]
    assert model in first.body["model"]
    outputs = {item.get("call_id"): str(item.get("output")) for item in second.body["input"]
               if str(item.get("type")).endswith("call_output")}
    assert set(outputs) == {"call_0", "call_1", "call_patch"}, outputs
    assert all("unsupported" in said for said in outputs.values()), outputs  # refused as no tool, not by a sandbox
    assert not marker.exists(), f"something ran or wrote: {marker.read_text()}"


def test_claude_failures_are_classified_with_their_fix(home, fake: FakeModels, model_url):
    cases = [(401, "invalid x-api-key", "not_signed_in"), (429, "rate_limit_error: slow down", "quota"),
             (404, "model: claude-nope not found", "unknown_model")]
    for status, said, failure in cases:
        fake.status, fake.error = status, said
        with pytest.raises(AgentCliError) as err:
            anyio.run(chunks_of, seat("claude", model_url))
        assert err.value.failure == failure, (status, err.value.message)
        assert "Claude Code" in err.value.message
    missing = seat("claude", model_url, binary="claude-not-installed-here")
    with pytest.raises(AgentCliError) as err:
        anyio.run(chunks_of, missing)
    assert err.value.failure == "not_installed" and "npm install -g @anthropic-ai/claude-code" in err.value.message


def council_pids(prefix: str) -> set[int]:
    """Processes whose command line names a scratch folder of ours (``council-<kind>-…``)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if prefix.encode() in (entry / "cmdline").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                pass
    return found


def gone_within(seconds: float, pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (not even a zombie) after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while pids and time.monotonic() < deadline:
        time.sleep(0.1)
        pids = {p for p in pids if alive(p)}
    return pids


def alive(pid: int) -> bool:
    try:
        return bool(Path(f"/proc/{pid}/cmdline").read_bytes())  # a zombie's is empty
    except OSError:
        return False


def test_deadline_and_cancel_kill_the_process_group(home, fake: FakeModels, model_url):
    fake.stall = 30  # the model never answers in time
    before = council_pids("council-codex-")  # other tests' CLIs still exiting are not this one's
    provider = seat("codex", model_url, deadline=8)  # codex names its scratch folder in argv (-C)
    start = time.monotonic()
    with pytest.raises(AgentCliError) as err:
        anyio.run(chunks_of, provider)
    assert err.value.failure == "timeout" and time.monotonic() - start < 20
    assert not gone_within(3, council_pids("council-codex-") - before)

    async def cancel_midway() -> set[int]:
        with anyio.move_on_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(chunks_of, seat("codex", model_url))
                while not fake.model_requests():
                    await anyio.sleep(0.1)
                running = council_pids("council-codex-")
                tg.cancel_scope.cancel()
        return running

    fake.requests.clear()
    running = anyio.run(cancel_midway)
    assert running, "the CLI was not running when cancelled"
    assert not gone_within(3, running - before)


def test_council_mcp_refuses_to_start_inside_a_seat():
    done = subprocess.run([sys.executable, "-m", "council", "mcp"], input="", capture_output=True, text=True,
                          timeout=60, env={**os.environ, "COUNCIL_SEAT": "1"})
    assert done.returncode == 5 and "seat" in done.stderr
