"""Codex as a seat: ``codex exec --json -`` with its prompt on stdin; the reply is the ``agent_message`` item,
usage from ``turn.completed`` (Codex's JSONL events carry no text deltas, so the reply comes whole).

A seat is a text completion: the user's ``config.toml`` and rules are not loaded (``--ignore-user-config``,
``--ignore-rules``: their MCP servers, hooks and profiles stay out; sign-in still comes from ``CODEX_HOME``), no MCP
servers, web search off, the tool features off (shell, exec, apps, plugins, hooks, browser and computer use, image
tools, agents), a read-only sandbox with approvals never granted (what Codex still offers, ``apply_patch``, is
refused by the sandbox), nothing saved (``--ephemeral``). ``base_url`` points Codex at another Responses API server
(a ``model_providers`` entry given with ``-c``; its key from the variable ``api_key`` names, else
``OPENAI_API_KEY``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from council.providers.agent_cli import AgentCliProvider, Event
from council.providers.base import CompletionRequest, Usage

OFF_FEATURES = ("shell_tool", "unified_exec", "apps", "plugins", "hooks", "browser_use", "computer_use",
                "image_generation", "view_image", "multi_agent", "goals", "tool_suggest", "sleep_tool",
                "skill_mcp_dependency_install", "memories")


class CodexCliProvider(AgentCliProvider):
    id = "codex"
    binary_name = "codex"
    title = "Codex"
    package = "@openai/codex"
    login = "codex login"
    streams_events = False  # nothing on stdout between turn.started and the whole reply

    def argv(self, request: CompletionRequest, scratch: Path) -> list[str]:
        args = ["exec", "--json", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only",
                "--ignore-user-config", "--ignore-rules", "--color", "never", "-C", str(scratch),
                "-c", "mcp_servers={}", "-c", 'web_search="disabled"', "-c", 'approval_policy="never"']
        for feature in OFF_FEATURES:
            args += ["--disable", feature]
        if self.cfg.base_url:
            entry = {"name": "council", "base_url": self.cfg.base_url, "wire_api": "responses",
                     "env_key": self.cfg.api_key_var() or "OPENAI_API_KEY"}
            inline = "{" + ",".join(f"{k}={json.dumps(v)}" for k, v in entry.items()) + "}"
            args += ["-c", f"model_providers.council={inline}", "-c", 'model_provider="council"']
        if self.cfg.model:
            args += ["-m", self.model]
        return [*args, "-"]

    def parse(self, data: dict[str, Any]) -> Iterable[Event]:
        kind = data.get("type")
        item = data.get("item") or {}
        if kind == "item.completed" and item.get("type") == "agent_message" and isinstance(item.get("text"), str):
            yield Event(final=item["text"])
        elif kind == "turn.completed":
            usage = data.get("usage") or {}
            yield Event(usage=Usage.read(input_tokens=usage.get("input_tokens"),
                                         output_tokens=usage.get("output_tokens")))
        elif kind in ("turn.failed", "error"):
            error = data.get("error") if isinstance(data.get("error"), dict) else data
            yield Event(error=str(error.get("message") or error))
