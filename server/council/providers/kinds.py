"""The provider table: one row per provider kind, and everything else about the kinds is derived from it.

A row says the kind's name, the module and class that serve it (imported lazily, by
:func:`council.providers.registry.build_provider`, so optional dependencies stay optional), whether it is a real model
a user picks, what a call costs, the model its ``ProviderConfig.options`` are checked with, and, for an agent CLI, who
makes its models and how it bills a headless call. From the table come: :data:`council.config.ProviderKind` and
``AGENT_CLI_KINDS``, the registry's classes and free/metered sets, the kinds a ``--models`` spec or a session may name
(:mod:`council.provider_hub`), the ``--provider`` choices of ``council serve``/``mcp``/``ask``/``doctor``, the words a
kind is named by (``provider.<kind>``, ``bills.<kind>``), and the VS Code settings that choose a provider (package.json
and ``extension/src/providerKinds.ts``, written by ``python -m tools.kindsgen``).

Adding a kind: a row here, its provider module, and its words in both catalogs (a test checks they are there).
This module imports no provider module and nothing of Council's.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal

#: What a call costs the user: ``free`` (in-process: only time), ``loopback`` (free when the server runs on this
#: machine, else metered), ``metered`` (a subscription, a plan's requests or an API bill).
Cost = Literal["free", "loopback", "metered"]


@dataclass(frozen=True)
class AgentCli:
    """What an agent CLI kind adds: the maker whose models it runs (its seats' ``vendor``) and the words key that
    says how it bills a headless call (shown with the seats)."""

    vendor: str
    bills: str


@dataclass(frozen=True)
class Setting:
    """How VS Code's ``council.provider`` setting offers a kind: the setting's word for it, the line that explains it,
    and whether ``council.http.provider`` (the sidecar's own default, the chat model's fallback) offers it too."""

    value: str
    description: str
    fallback: bool = False


@dataclass(frozen=True)
class Kind:
    kind: str
    module: str
    cls: str
    #: A model a user runs Council on (``council serve --provider``); not the scripted test model nor a client's.
    real: bool
    cost: Cost
    #: ``module:Class`` of the pydantic model that checks ``ProviderConfig.options`` (None: it reads none).
    options: str | None = None
    #: The client lends the model (``council/complete``): it only works inside a client that answers it.
    lent: bool = False
    cli: AgentCli | None = None
    setting: Setting | None = None

    @property
    def words(self) -> str:
        """The catalog key that names the kind in people's words."""
        return f"provider.{self.kind}"


_CLI_OPTIONS = "council.providers.agent_cli:AgentCliOptions"

TABLE: tuple[Kind, ...] = (
    Kind("openai", "council.providers.openai_compat", "OpenAICompatProvider", real=True, cost="loopback",
         options="council.providers.openai_compat:OpenAIOptions",
         setting=Setting("openai", "An OpenAI-compatible HTTP endpoint (council.http.*).", fallback=True)),
    Kind("ollama", "council.providers.ollama", "OllamaProvider", real=True, cost="loopback",
         options="council.providers.ollama:OllamaOptions",
         setting=Setting("ollama", "A local Ollama server (council.http.*).", fallback=True)),
    Kind("embedded", "council.providers.embedded", "EmbeddedProvider", real=True, cost="free",
         options="council.providers.embedded:EmbeddedOptions",
         setting=Setting("embedded", "The small model embedded in the sidecar (needs the sidecar's `local` extra).",
                         fallback=True)),
    Kind("scripted", "council.providers.scripted", "ScriptedProvider", real=False, cost="free",
         setting=Setting("scripted", "Deterministic canned answers (tests and demos).")),
    Kind("client", "council.providers.client", "ClientProvider", real=False, cost="metered", lent=True,
         setting=Setting("chat", "The model you picked in the Chat view serves the council; the HTTP provider below "
                                 "is the fallback when it is unavailable.")),
    Kind("claude", "council.providers.claude_code", "ClaudeCodeProvider", real=True, cost="metered",
         options=_CLI_OPTIONS, cli=AgentCli(vendor="anthropic", bills="bills.claude")),
    Kind("codex", "council.providers.codex_cli", "CodexCliProvider", real=True, cost="metered",
         options=_CLI_OPTIONS, cli=AgentCli(vendor="openai", bills="bills.codex")),
    Kind("gemini", "council.providers.gemini_cli", "GeminiCliProvider", real=True, cost="metered",
         options=_CLI_OPTIONS, cli=AgentCli(vendor="google", bills="bills.gemini")),
    Kind("copilot", "council.providers.copilot_cli", "CopilotCliProvider", real=True, cost="metered",
         options=_CLI_OPTIONS, cli=AgentCli(vendor="github", bills="bills.copilot")),
)

BY_KIND: dict[str, Kind] = {row.kind: row for row in TABLE}
#: Every kind, in the table's order (``ProviderKind``'s values).
KINDS: tuple[str, ...] = tuple(BY_KIND)
#: The kinds a user runs Council on (``--provider`` choices besides the test and the client's models).
REAL_KINDS: tuple[str, ...] = tuple(row.kind for row in TABLE if row.real)
#: The kinds that run an agent CLI the user is signed into (README, "Seats on your agent CLIs"), in the order the
#: ones found on PATH are seated.
AGENT_CLI_KINDS: tuple[str, ...] = tuple(row.kind for row in TABLE if row.cli is not None)
FREE_KINDS = frozenset(row.kind for row in TABLE if row.cost == "free")
LOOPBACK_KINDS = frozenset(row.kind for row in TABLE if row.cost == "loopback")

if len(BY_KIND) != len(TABLE):  # pragma: no cover - a table edit gone wrong fails at import, not at a user's call
    raise ValueError("a provider kind is in the table twice")


def choices(*, lent: bool) -> list[str]:
    """The ``--provider`` choices: the real kinds, then the test kinds, then (``lent``: a sidecar a client can lend
    its model to) the client's."""
    return [*REAL_KINDS, *(r.kind for r in TABLE if not r.real and not r.lent),
            *((r.kind for r in TABLE if r.lent) if lent else ())]


def options_model(kind: str) -> Any:
    """The pydantic model that checks ``kind``'s options (imported now), or None when it reads none."""
    path = BY_KIND[kind].options
    if path is None:
        return None
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def provider_class(kind: str) -> Any:
    """The class that serves ``kind`` (its module imported now)."""
    row = BY_KIND[kind]
    return getattr(importlib.import_module(row.module), row.cls)
