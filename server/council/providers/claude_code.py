"""Claude Code as a seat: ``claude -p`` with its prompt on stdin, streaming ``stream-json`` events (text deltas
from ``--include-partial-messages``; usage and cost from the final ``result``).

A seat is a text completion: no built-in tools (``--tools ""``), no MCP servers (``--strict-mcp-config`` with an empty
config), no user, project or local settings (``--setting-sources ""``: their hooks, plugins, permissions and
``CLAUDE.md`` files and rules stay out) and hooks off besides, no auto memory, no slash commands, no session saved;
Council's system text replaces Claude Code's own system prompt (``--system-prompt-file`` in the scratch folder, so it
is not in argv). ``base_url`` sets ``ANTHROPIC_BASE_URL`` (a proxy, or the tests' fake server).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from council.providers.agent_cli import AgentCliError, AgentCliProvider, Event, ask_quietly, system_text, transcript
from council.providers.base import CompletionRequest, Usage

NO_MCP = json.dumps({"mcpServers": {}})
#: The seat's own settings (``--settings``): no hooks, no auto memory (``~/.claude/projects/<project>/memory``, which
#: ``--setting-sources ""`` does not turn off).
SEAT_SETTINGS = json.dumps({"disableAllHooks": True, "autoMemoryEnabled": False})


def input_tokens(usage: dict[str, Any]) -> Any:
    """The prompt's tokens: those read afresh and those written to or read from the prompt cache (Claude Code's
    own system prompt is cached, so most of a call's input is there)."""
    counts = [usage.get(key) for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
    if not isinstance(counts[0], int) or isinstance(counts[0], bool):
        return counts[0]
    return sum(c for c in counts if isinstance(c, int) and not isinstance(c, bool) and c >= 0)


class ClaudeCodeProvider(AgentCliProvider):
    id = "claude"
    binary_name = "claude"
    title = "Claude Code"
    package = "@anthropic-ai/claude-code"
    login = "claude auth login"

    def argv(self, request: CompletionRequest, scratch: Path) -> list[str]:
        args = ["-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
                "--tools", "", "--strict-mcp-config", "--mcp-config", NO_MCP, "--setting-sources", "",
                "--settings", SEAT_SETTINGS, "--disable-slash-commands", "--no-session-persistence",
                "--permission-mode", "dontAsk"]
        if self.cfg.model:
            args += ["--model", self.model]
        system = system_text(request.messages)
        if system:
            path = scratch / "system.md"
            path.write_text(system, encoding="utf-8")
            args += ["--system-prompt-file", str(path)]
        return args

    async def unready(self, executable: str) -> AgentCliError | None:
        """Not signed in: ``claude auth status`` says ``loggedIn: false`` for Anthropic's own API (Bedrock, Vertex
        and Foundry sign in with their own credentials, which it does not check)."""
        _, said = await ask_quietly([executable, "auth", "status"])
        try:
            status = json.JSONDecoder().raw_decode(said.strip())[0]
        except ValueError:
            return None
        if isinstance(status, dict) and status.get("loggedIn") is False \
                and status.get("apiProvider", "firstParty") == "firstParty":
            return self.failure("not_signed_in", f"claude auth status: loggedIn false, authMethod "
                                                 f"{status.get('authMethod')}")
        return None

    def prompt(self, request: CompletionRequest) -> str:
        return transcript(request.messages, with_system=False)

    def extra_env(self, scratch: Path) -> dict[str, str]:
        env = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
        if self.cfg.base_url:
            env["ANTHROPIC_BASE_URL"] = self.cfg.base_url
        return env

    def parse(self, data: dict[str, Any]) -> Iterable[Event]:
        kind = data.get("type")
        if kind == "stream_event":
            event = data.get("event") or {}
            delta = event.get("delta") or {}
            if event.get("type") == "content_block_delta" and delta.get("type") == "text_delta":
                yield Event(delta=str(delta.get("text") or ""))
        elif kind == "result":
            usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
            yield Event(final=data.get("result") if isinstance(data.get("result"), str) else None,
                        usage=Usage.read(input_tokens=input_tokens(usage), output_tokens=usage.get("output_tokens"),
                                         cost_usd=data.get("total_cost_usd")))
            if data.get("is_error"):
                yield Event(error=str(data.get("result") or data.get("api_error_status") or data.get("subtype")))
