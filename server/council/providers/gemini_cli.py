"""Gemini CLI as a seat: ``gemini`` in headless mode with its prompt on stdin (no ``-p``: piped stdin is the
prompt), streaming ``stream-json`` events (assistant ``message`` deltas; usage from the final ``result``).

A seat is a text completion: a policy file in the scratch folder denies every tool (``toolName = "*"``, so the model
is offered none), no extensions (``-e none``), no MCP server allowed (``--allowed-mcp-server-names`` naming none), the
empty scratch folder trusted for this run only (``--skip-trust``). Hooks, built-in tools, tool discovery, MCP server
commands, skills, subagents and context files (``GEMINI.md`` and the user's own names) are settings only: the scratch
folder (a fresh 0700 folder of Council's, the CLI's working folder) holds them as the *workspace* settings,
``.gemini/settings.json`` (:data:`SEAT_SETTINGS`), which override the user's own. The workspace must be trusted when
the settings are read, before ``--skip-trust`` is parsed, so ``GEMINI_CLI_TRUST_WORKSPACE`` says so too. (Gemini CLI
0.61 reads a system settings file, ``GEMINI_CLI_SYSTEM_SETTINGS_PATH``, only when it and every folder above it are
root's and writable by no one else: not a place a user's process can write; the administrator's system settings stay
above these.) ``base_url`` sets ``GOOGLE_GEMINI_BASE_URL`` (API-key sign-in only, as Gemini CLI documents it). The
user's ``GEMINI_SYSTEM_MD`` and an IDE's ``GEMINI_CLI_IDE_*`` variables are not passed on. Gemini CLI 0.61 still reads
``~/.gemini/GEMINI.md`` and the ``GEMINI.md`` of the user's ``context.includeDirectories`` (no setting stops either:
workspace settings only add names and folders), and ``GEMINI_CLI_HOME`` would move its sign-in with them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from council.providers.agent_cli import AgentCliError, AgentCliProvider, Event
from council.providers.base import CompletionRequest, Usage

DENY_ALL = '[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 999\n'
NO_MCP = "council-no-mcp-server"
#: The context file name a seat reads: one no folder holds (Gemini CLI adds ``GEMINI.md`` to any name it is given).
NO_CONTEXT_FILE = "council-seat-reads-no-context-file.md"
#: Each seat's workspace settings (Gemini CLI 0.61's keys): no hooks at all, no built-in tool (an empty ``tools.core``
#: allow-list), no tool discovery or call command, no MCP server command and none allowed, no skills, no subagents;
#: no context file name of the user's (``context.fileName``), no search for context files above the scratch folder
#: (no ``memoryBoundaryMarkers``: the project root is the scratch folder itself), none in include directories, no
#: auto memory, no IDE (whose workspace folders' context files it would read). One attempt per model request
#: (``general.maxAttempts``): Gemini CLI would otherwise retry a rate limit (429) silently for minutes, past the
#: seat's silence limit, and the seat would read it as a timeout; a rate limit is said at once, with its fix.
SEAT_SETTINGS = {
    "general": {"maxAttempts": 1},
    "hooksConfig": {"enabled": False},
    "tools": {"core": [], "discoveryCommand": "", "callCommand": ""},
    "mcp": {"serverCommand": "", "allowed": [NO_MCP]},
    "skills": {"enabled": False},
    "experimental": {"enableAgents": False, "autoMemory": False},
    "context": {"fileName": [NO_CONTEXT_FILE], "memoryBoundaryMarkers": [],
                "loadMemoryFromIncludeDirectories": False},
    "ide": {"enabled": False},
}
#: The user's variables a seat's environment drops: those by which an IDE hands Gemini CLI its workspace folders
#: (whose context files it would read) and its connection, and the user's own system prompt file (and its copy).
DROPPED_ENV_PREFIX = "GEMINI_CLI_IDE_"
DROPPED_ENV = ("GEMINI_SYSTEM_MD", "GEMINI_WRITE_SYSTEM_MD")

#: The environment by which Gemini CLI 0.61 picks a sign-in without settings (its ``getAuthTypeFromEnv``).
AUTH_ENV = {"GEMINI_API_KEY": None, "GOOGLE_GEMINI_BASE_URL": None, "GOOGLE_GENAI_USE_GCA": "true",
            "GOOGLE_GENAI_USE_VERTEXAI": "true", "CLOUD_SHELL": "true", "GEMINI_CLI_USE_COMPUTE_ADC": "true"}
#: A settings file that names one of these picks (or enforces) a sign-in.
AUTH_KEYS = ("selectedType", "enforcedType", "selectedAuthType")
#: Gemini CLI's exit status for a sign-in it cannot use (``FATAL_AUTHENTICATION_ERROR``).
SIGNED_OUT_EXIT = 41


def settings_files() -> list[Path]:
    """The settings files Gemini CLI reads a sign-in from: the system's, the system defaults, the user's."""
    if os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH"):
        system = Path(os.environ["GEMINI_CLI_SYSTEM_SETTINGS_PATH"])
    elif sys.platform == "darwin":
        system = Path("/Library/Application Support/GeminiCli/settings.json")
    elif sys.platform == "win32":
        system = Path("C:/ProgramData/gemini-cli/settings.json")
    else:
        system = Path("/etc/gemini-cli/settings.json")
    defaults = Path(os.environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or system.parent / "system-defaults.json")
    home = Path(os.environ.get("GEMINI_CLI_HOME") or Path.home())
    return [system, defaults, home / ".gemini" / "settings.json"]


def sign_in_named() -> bool:
    """Whether the environment or a settings file picks a sign-in (a file that cannot be read counts: unsure)."""
    if any(os.environ.get(var) and (value is None or os.environ[var] == value) for var, value in AUTH_ENV.items()):
        return True
    for path in settings_files():
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if any(key in text for key in AUTH_KEYS):
            return True
    return False


class GeminiCliProvider(AgentCliProvider):
    id = "gemini"
    binary_name = "gemini"
    title = "Gemini CLI"
    package = "@google/gemini-cli"
    login = "gemini"
    signed_out_codes = (SIGNED_OUT_EXIT,)

    async def unready(self, executable: str) -> AgentCliError | None:
        """Not signed in: no settings file picks a sign-in and no variable does (Gemini CLI then refuses to start
        headless); a sign-in picked but unusable shows in the check's call (exit status 41)."""
        if self.cfg.base_url or sign_in_named():
            return None
        return self.failure("not_signed_in", "no security.auth.selectedType in " + str(settings_files()[-1])
                            + " and none of GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA")

    def argv(self, request: CompletionRequest, scratch: Path) -> list[str]:
        policy = scratch / "council-no-tools.toml"
        policy.write_text(DENY_ALL, encoding="utf-8")
        settings = scratch / ".gemini" / "settings.json"
        settings.parent.mkdir(mode=0o700, exist_ok=True)
        settings.write_text(json.dumps(SEAT_SETTINGS), encoding="utf-8")
        args = ["--output-format", "stream-json", "-e", "none", "--skip-trust", "--policy", str(policy),
                "--allowed-mcp-server-names", NO_MCP]
        if self.cfg.model:
            args += ["-m", self.model]
        return args

    def environment(self, scratch: Path) -> dict[str, str]:
        return {k: v for k, v in super().environment(scratch).items()
                if not k.startswith(DROPPED_ENV_PREFIX) and k not in DROPPED_ENV}

    def extra_env(self, scratch: Path) -> dict[str, str]:
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}  # the scratch folder: its settings are Council's
        if self.cfg.base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = self.cfg.base_url
        return env

    def parse(self, data: dict[str, Any]) -> Iterable[Event]:
        kind = data.get("type")
        if kind == "message" and data.get("role") == "assistant" and isinstance(data.get("content"), str):
            yield Event(delta=data["content"]) if data.get("delta") else Event(final=data["content"])
        elif kind == "result":
            stats = data.get("stats") or {}
            yield Event(usage=Usage.read(input_tokens=stats.get("input_tokens"),
                                         output_tokens=stats.get("output_tokens")))
            if data.get("status") not in (None, "success"):
                error = data.get("error") or {}
                yield Event(error=str(error.get("message") if isinstance(error, dict) else error or data))
        elif kind == "error" and data.get("severity") == "warning":
            yield Event(warning=str(data.get("message") or data))
        elif kind == "error":
            yield Event(error=str(data.get("message") or data))
