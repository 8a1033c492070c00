"""Codex as a seat: ``codex exec --json -`` with its prompt on stdin; the reply is the ``agent_message`` item,
usage from ``turn.completed`` (Codex's JSONL events carry no text deltas, so the reply comes whole).

A seat is a text completion: the user's ``config.toml`` and rules are not loaded (``--ignore-user-config``,
``--ignore-rules``: their MCP servers, hooks and profiles stay out; sign-in still comes from ``CODEX_HOME``), no MCP
servers, web search off, the tool features off (shell, exec, apps, plugins, hooks, browser and computer use, image
tools, agents), the ``[tools]`` Codex's config turns off (``request_user_input``, ``update_plan``), no skills or
project ``AGENTS.md`` instructions (Codex 0.169 still reads ``$CODEX_HOME/AGENTS.md``, or ``AGENTS.override.md``: no
setting skips it, and another ``CODEX_HOME`` would lose the sign-in), a read-only sandbox with approvals never
granted, nothing saved (``--ephemeral``). ``apply_patch`` and a model's experimental tools are no setting but part of
each model's entry in Codex's model catalog: each call gets the catalog the pinned binary ships (``codex debug models
--bundled``, asked once per executable) with those tools taken out of every model (``model_catalog_json``, in the
scratch folder), so the model is offered no tool at all (a model the catalog does not know gets Codex's defaults,
which offer none either); a tool call it makes anyway is answered "unsupported call". ``base_url`` points Codex at
another Responses API server (a ``model_providers`` entry given with ``-c``; its key from the variable ``api_key``
names, else ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio

from council.providers.agent_cli import AgentCliError, AgentCliProvider, Event, ask_quietly
from council.providers.base import CompletionRequest, Usage

log = logging.getLogger(__name__)

OFF_FEATURES = ("shell_tool", "unified_exec", "apps", "plugins", "hooks", "browser_use", "computer_use",
                "image_generation", "view_image", "multi_agent", "goals", "tool_suggest", "sleep_tool",
                "skill_mcp_dependency_install", "skill_search", "memories")

#: What the ``-c`` overrides turn off besides the features: the config's own tools, skills and project instructions.
OFF_CONFIG = ("mcp_servers={}", 'web_search="disabled"', 'approval_policy="never"',
              "tools.experimental_request_user_input.enabled=false", "tools.update_plan.enabled=false",
              "skills.include_instructions=false", "skills.bundled.enabled=false", "project_doc_max_bytes=0")
#: Each catalog model's tool fields as a seat has them (the others are dropped, so Codex's defaults apply: no code
#: mode, no subagents).
NO_TOOLS = {"apply_patch_tool_type": None, "experimental_supported_tools": [], "supports_search_tool": False,
            "node_repl_disabled": True, "include_skills_usage_instructions": False,
            "include_plugin_usage_instructions": False, "include_apps_usage_instructions": False}
DROPPED = ("tool_mode", "multi_agent_version", "multi_agent_reasoning_effort")
CATALOG = "council-models.json"

_catalogs: dict[tuple[str, float], dict[str, Any] | None] = {}  # (executable, its mtime) → its catalog, tools out


def without_tools(catalog: dict[str, Any]) -> dict[str, Any] | None:
    """``catalog`` (``codex debug models``) with no model offering a tool; None when it holds no model."""
    models = catalog.get("models")
    if not isinstance(models, list) or not models or not all(isinstance(m, dict) for m in models):
        return None
    return {**catalog, "models": [{**{k: v for k, v in m.items() if k not in DROPPED}, **NO_TOOLS} for m in models]}


async def bundled_catalog(executable: str, env: dict[str, str]) -> dict[str, Any] | None:
    """The model catalog ``executable`` ships, tools taken out (None: it has no ``debug models --bundled``)."""
    try:
        key = (executable, os.stat(executable).st_mtime)
    except OSError:
        return None  # gone since it was found: the call itself will say so
    if key not in _catalogs:
        try:
            with anyio.fail_after(30):
                done = await anyio.run_process([executable, "debug", "models", "--bundled"], env=env, check=False)
            _catalogs[key] = without_tools(json.loads(done.stdout)) if done.returncode == 0 else None
        except (OSError, ValueError, TimeoutError, AttributeError) as err:
            log.debug("codex's model catalog is not read: %s", err)
            _catalogs[key] = None
        if _catalogs[key] is None:
            log.warning("%s gave no model catalog: its models may still offer apply_patch (refused by the "
                        "read-only sandbox)", executable)
    return _catalogs[key]


class CodexCliProvider(AgentCliProvider):
    id = "codex"
    binary_name = "codex"
    title = "Codex"
    package = "@openai/codex"
    login = "codex login"
    streams_events = False  # nothing on stdout between turn.started and the whole reply

    def argv(self, request: CompletionRequest, scratch: Path) -> list[str]:
        args = ["exec", "--json", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only",
                "--ignore-user-config", "--ignore-rules", "--color", "never", "-C", str(scratch)]
        for setting in OFF_CONFIG:
            args += ["-c", setting]
        if (scratch / CATALOG).is_file():
            args += ["-c", f"model_catalog_json={json.dumps(str(scratch / CATALOG))}"]
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

    async def unready(self, executable: str) -> AgentCliError | None:
        """Not signed in: ``codex login status`` says so and no API key is in the environment (a signed-out Codex
        otherwise retries its network until the deadline). A ``base_url`` seat needs its key variable, no sign-in."""
        if self.cfg.base_url or any(os.environ.get(var) for var in ("CODEX_API_KEY", "OPENAI_API_KEY")):
            return None
        code, said = await ask_quietly([executable, "login", "status"])
        if code is None or code == 0:
            return None
        lines = [line for line in said.splitlines() if line.strip() and not line.startswith("WARNING")]
        return self.failure("not_signed_in", f"codex login status: {lines[0] if lines else code}")

    async def prepare(self, executable: str, scratch: Path) -> None:
        catalog = await bundled_catalog(executable, self.environment(scratch))
        if catalog is not None:
            (scratch / CATALOG).write_text(json.dumps(catalog), encoding="utf-8")

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
