"""GitHub Copilot CLI as a seat: ``copilot -p ""`` with its prompt on stdin, streaming JSONL events
(``assistant.message_delta``; the whole ``assistant.message``; premium requests used from the final ``result``).

A seat is a text completion: only a tool that does not exist is available (``--available-tools``: the model is
offered none), shell and write denied besides, no built-in MCP servers and each of the user's own disabled by name
(``mcp-config.json`` in ``COPILOT_HOME``), no custom instructions, no questions to the user, no auto-update.
``base_url`` selects Copilot CLI's own BYOK provider (``COPILOT_PROVIDER_BASE_URL``, an OpenAI-compatible server).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from council.providers.agent_cli import AgentCliError, AgentCliProvider, Event, ask_quietly
from council.providers.base import CompletionRequest, Usage

NO_TOOL = "council-no-tool"
#: The variables that name the model of Copilot CLI's own provider (BYOK), which it must be given.
BYOK_MODEL_VARS = ("COPILOT_MODEL", "COPILOT_PROVIDER_MODEL_ID")
#: The variables whose token Copilot CLI 1.0 signs in with, before any stored sign-in (its ``copilot help``).
TOKEN_VARS = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
#: A non-empty list of signed-in users in Copilot CLI's ``config.json`` (``copilot login`` keeps them there; 1.0's
#: runtime names them ``loggedInUsers``, earlier versions ``logged_in_users``).
SIGNED_IN_USERS = re.compile(r'"(loggedInUsers|logged_in_users)"\s*:\s*\[\s*\{')


def copilot_home() -> Path:
    return Path(os.environ.get("COPILOT_HOME") or Path.home() / ".copilot")


def model_in_settings() -> bool:
    """Whether Copilot CLI's own settings may name a model (``/config model``; a file that cannot be read counts)."""
    for name in ("settings.json", "config.json"):
        try:
            if re.search(r'"model"\s*:', (copilot_home() / name).read_text(encoding="utf-8")):
                return True
        except FileNotFoundError:
            continue
        except OSError:
            return True
    return False


def users_in_config() -> bool:
    """Whether Copilot CLI's ``config.json`` lists a signed-in user (a file that cannot be read counts: unsure)."""
    try:
        return bool(SIGNED_IN_USERS.search((copilot_home() / "config.json").read_text(encoding="utf-8")))
    except FileNotFoundError:
        return False
    except OSError:
        return True


def user_mcp_servers() -> list[str]:
    """The MCP servers the user configured for Copilot CLI (their names), to disable each."""
    home = copilot_home()
    try:
        servers = json.loads((home / "mcp-config.json").read_text(encoding="utf-8")).get("mcpServers") or {}
    except (OSError, ValueError, AttributeError):
        return []
    return [name for name in servers if isinstance(name, str)] if isinstance(servers, dict) else []


class CopilotCliProvider(AgentCliProvider):
    id = "copilot"
    binary_name = "copilot"
    title = "GitHub Copilot CLI"
    package = "@github/copilot"
    login = "copilot login"

    def argv(self, request: CompletionRequest, scratch: Path) -> list[str]:
        args = ["-p", "", "--output-format", "json", "--stream", "on", "-s", f"--available-tools={NO_TOOL}",
                "--deny-tool=shell", "--deny-tool=write", "--disable-builtin-mcps", "--no-custom-instructions",
                "--no-ask-user", "--no-auto-update", "--disable-client-telemetry"]
        for name in user_mcp_servers():
            args.append(f"--disable-mcp-server={name}")
        if self.cfg.model:
            args += ["--model", self.model]
        return args

    def byok_without_model(self) -> AgentCliError | None:
        """Copilot CLI's own provider (``COPILOT_PROVIDER_BASE_URL``, or ``base_url``) needs a model named, which it
        then asks for in words no other failure has."""
        if not (self.cfg.base_url or os.environ.get("COPILOT_PROVIDER_BASE_URL")) or self.cfg.model \
                or any(os.environ.get(var) for var in BYOK_MODEL_VARS) or model_in_settings():
            return None
        return self.failure("unknown_model", fix_key="agent_cli.byok_model")

    async def unready(self, executable: str) -> AgentCliError | None:
        """Not signed in, told without a model call (Copilot CLI has no status command): none of its own provider
        (BYOK: then only a model must be named), a token variable, a signed-in user in its ``config.json``, or a
        GitHub CLI sign-in (``gh auth token``, which Copilot CLI falls back on; its output is not kept)."""
        if self.cfg.base_url or os.environ.get("COPILOT_PROVIDER_BASE_URL"):
            return self.byok_without_model()
        if any(os.environ.get(var, "").strip() for var in TOKEN_VARS) or users_in_config():
            return None
        gh = shutil.which("gh")
        if gh is not None and (await ask_quietly([gh, "auth", "token"], 10.0))[0] == 0:
            return None
        return self.failure("not_signed_in", f"no {', '.join(TOKEN_VARS)}, no signed-in user in "
                                             f"{copilot_home() / 'config.json'}, no `gh auth token`")

    def classify(self, said: str, code: int | None = None) -> AgentCliError:
        if "explicit model" in said:
            return self.failure("unknown_model", said, fix_key="agent_cli.byok_model")
        return super().classify(said, code)

    def extra_env(self, scratch: Path) -> dict[str, str]:
        return {"COPILOT_PROVIDER_BASE_URL": self.cfg.base_url} if self.cfg.base_url else {}

    def parse(self, data: dict[str, Any]) -> Iterable[Event]:
        kind = str(data.get("type") or "")
        body = data.get("data") if isinstance(data.get("data"), dict) else {}
        if kind == "assistant.message_delta" and isinstance(body.get("deltaContent"), str):
            yield Event(delta=body["deltaContent"])
        elif kind == "assistant.message" and body.get("content"):
            yield Event(final=str(body["content"]))
        elif kind == "result":
            usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
            yield Event(usage=Usage.read(premium_requests=usage.get("premiumRequests")))
            if data.get("exitCode") not in (None, 0):
                yield Event(error=f"exit code {data.get('exitCode')}")
        elif kind == "error" or kind.endswith(".error"):
            yield Event(error=str(body.get("message") or data.get("message") or data))
