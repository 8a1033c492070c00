"""Chooses the models a session uses, seats its personas on them, and keeps the providers alive across sessions.

The rules are README's (*Models*, *Different models at the table*). The seating is journaled and
:meth:`ProviderHub.picker_for` reads it at each call, so a seat that fell back is served by the chat's model from its
next call on. The surfaces differ on purpose: a config's ``[persona_providers]`` entry naming no persona or provider
is refused; a client's persona → model map is a preference (a key naming no persona is said in ``seating.decided``).
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable

from pydantic import ValidationError

from council.config import ConfigError, CouncilConfig, ProviderConfig, adhoc_provider
from council.errors import CouncilError, validation_error
from council.personas.loader import PersonaLibrary
from council.protocol.methods import ClientCapabilities, SessionOptions, TurnParams
from council.providers.agent_cli import DEFAULT_MODEL, AgentCliProvider
from council.providers.base import Provider, ProviderError
from council.providers.client import ClientBridge, ClientProvider
from council.providers.kinds import AGENT_CLI_KINDS, BY_KIND, KINDS
from council.providers.registry import build_provider, choose_default, found_clis, provider_for_persona
from council.session.calls.structured import ProviderPicker
from council.session.state import records as r
from council.session.state.runtime import SessionRuntime
from council.session.state.seating import ModelChoice, Seating, SeatMiss, seat

log = logging.getLogger(__name__)

CACHE = 16
CLI_MODEL = re.compile(r"[A-Za-z0-9][\w.:/@+\[\]-]*")  # a model name an agent CLI takes as one argument's value


class ProviderHub:
    def __init__(self, config: CouncilConfig, bridge: ClientBridge | None = None) -> None:
        self.config = config
        self.bridge = bridge
        self._cache: OrderedDict[str, Provider] = OrderedDict()
        self._choices: dict[str, ProviderConfig] = {}  # model choice id → its provider config (this sidecar's)

    def _get(self, cfg: ProviderConfig) -> Provider:
        """A shared provider per configuration; at most CACHE providers are kept (clients choose model names, so
        the set is open): a dropped one stays alive for the sessions that hold it."""
        key = cfg.model_dump_json()
        if key not in self._cache:
            self._cache[key] = build_provider(cfg, bridge=self.bridge)
            while len(self._cache) > CACHE:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return self._cache[key]

    async def default_config(self, options: SessionOptions,
                             client: ClientCapabilities) -> tuple[str, ProviderConfig, str]:
        """The chat's model's provider (its name, its config) for a session, and why it was chosen."""
        if options.provider:
            cfg = self.config.providers.get(options.provider)
            if cfg is None:
                cfg = _adhoc(options.provider, options.model or "", self.config)
            elif options.model:
                cfg = cfg.model_copy(update={"model": options.model})
            return options.provider, cfg, f"provider {options.provider!r} requested for this session"
        found = await self._found(options, client)
        if found:
            return found[0].kind, found[0], f"the agent CLIs found on PATH: {', '.join(c.kind for c in found)}"
        client_ok = client.completion and self.bridge is not None
        name, cfg, reason = await choose_default(self.config, client_available=client_ok)
        if cfg.kind == "client" and client.completion_model:
            cfg = cfg.model_copy(update={"model": client.completion_model})
        if options.model and cfg.kind != "client":
            cfg = cfg.model_copy(update={"model": options.model})
        return name, cfg, reason

    async def _found(self, options: SessionOptions, client: ClientCapabilities) -> list[ProviderConfig]:
        """The agent CLIs to seat when nothing chose a model (README, "Models"); none otherwise."""
        if options.provider or options.models:
            return []
        return await found_clis(self.config, client_available=bool(client.completion and self.bridge is not None))

    async def picker(self, options: SessionOptions, client: ClientCapabilities) -> tuple[ProviderPicker, Provider]:
        """A role → provider function for one session, and its default provider (why it was chosen is logged)."""
        _, cfg, reason = await self.default_config(options, client)
        default = self._get(cfg)
        per_persona: dict[str, Provider] = {}

        def pick(role: str) -> Provider:
            if role not in per_persona:
                name = provider_for_persona(self.config, role)
                per_persona[role] = self._get(self.config.providers[name]) if name else default
            return per_persona[role]

        log.info("models for a new session: %s (%s)", reason, default.describe())
        return pick, default

    async def seat(self, library: PersonaLibrary, params: TurnParams, personas: list[str]) -> tuple[Seating, Provider]:
        """Seat a new session's ``personas`` on the models it may use, after the checks of the rules above (the
        map's misses kept); the seating and the chat's model's provider (a provider problem is the caller's: a
        validation error)."""
        check_persona_providers(self.config, library)
        options, unknown = resolve_seating_map(params.options, library)
        try:
            seating, default = await self._seat(options, params.client, personas)
        except ProviderError as exc:
            raise validation_error(f"model provider problem: {exc.message}", kind=exc.kind) from None
        seating.misses = [*unknown, *seating.misses][:12]
        return seating, default

    async def _seat(self, options: SessionOptions, client: ClientCapabilities,
                    personas: list[str]) -> tuple[Seating, Provider]:
        found = await self._found(options, client)
        if options.models:
            offered = [self._spec_choice(spec, i) for i, spec in enumerate(options.models)]
            chair = offered[0]
        elif found:  # spread over the CLIs as over model families, the moderator and the chair on the first
            offered = [self._choice(cfg.kind, cfg, family=cfg.kind) for cfg in found]
            chair = offered[0]
        else:
            name, cfg, reason = await self.default_config(options, client)
            log.info("the chat's model for a new session: %s", reason)
            if cfg.kind == "client":
                chair = ModelChoice(id=client.chat_model_id or "client", provider="client",
                                    model=cfg.model or client.completion_model or "client")
            else:
                chair = self._choice(name, cfg)
            offered = [chair]
            if chair.provider == "client" and client.models:
                offered = [ModelChoice(id=m.id, provider="client", model=m.name or m.id, vendor=m.vendor,
                                       family=m.family) for m in client.models]
                chair = next((m for m in offered if m.id == chair.id), offered[0])
        fixed = {persona: self._choice(name, self.config.providers[name]) for persona in personas  # the config's map
                 if (name := provider_for_persona(self.config, persona))}
        options, clis, missing = self._map_clis(options, offered)
        seating = seat(personas, [*offered, *clis], chair, options.seating, fixed, missing)
        seating.found = bool(found)
        log.info("seating (%s): %s", seating.policy, ", ".join(f"{s.persona}={s.model.label}" for s in seating.seats))
        return seating, self.provider_of(chair)

    def _map_clis(self, options: SessionOptions, offered: list[ModelChoice]
                  ) -> tuple[SessionOptions, list[ModelChoice], dict[str, str]]:
        """A persona → model map's agent-CLI seats: a value that is no offered model's id but a ``--models`` spec of
        an agent CLI (``codex:gpt-5.1-codex``, ``claude:``; read by the same parser) is that CLI's model. The options
        with those values as their choices' ids, the choices whose CLI is on PATH, and those whose CLI is not (id →
        its fix; the persona sits on the chat's model, and the seating's misses say why)."""
        policy = options.seating
        if not isinstance(policy, dict):
            return options, [], {}
        ids = {m.id for m in offered}
        chosen: dict[str, ModelChoice] = {}
        for want in dict.fromkeys(policy.values()):
            if want in ids or ":" not in want:
                continue
            try:
                cfg = self._spec_config(want)
            except CouncilError:  # no provider of that name: the map's miss says what it could name
                continue
            if cfg.kind in AGENT_CLI_KINDS:
                name = want.split(":", 1)[0].strip()
                chosen[want] = self._choice(name, cfg, family=cfg.model or name)
        choices = list({c.id: c for c in chosen.values()}.values())
        missing: dict[str, str] = {}
        for choice in choices:
            provider = self.provider_of(choice)
            try:
                if isinstance(provider, AgentCliProvider):
                    provider.executable()  # on PATH (the check a call makes first, with the same fix)
            except ProviderError as exc:
                missing[choice.id] = exc.message[:300]
        resolved = {persona: chosen[want].id if want in chosen else want for persona, want in policy.items()}
        return (options.model_copy(update={"seating": resolved}), [c for c in choices if c.id not in missing],
                missing)

    def picker_for(self, seating: Callable[[], Seating | None], fallback: Provider) -> ProviderPicker:
        """Role → provider from the session's seating as it is at each call (``fallback`` before it is seated)."""
        def pick(role: str) -> Provider:
            current = seating()
            return fallback if current is None else self.provider_of(current.model_of(role))
        return pick

    def provider_of(self, choice: ModelChoice) -> Provider:
        """The provider serving ``choice``: the client's model by id, else the configured or named provider."""
        if choice.provider == "client":
            if self.bridge is None:
                raise ProviderError("the client's models only work inside a client that answers council/complete",
                                    kind="config")
            key = f"client\0{choice.id}\0{choice.model}"
            if key not in self._cache:
                model_id = None if choice.id == "client" else choice.id
                self._cache[key] = ClientProvider(self.bridge, model=choice.model, model_id=model_id)
            return self._cache[key]
        cfg = self._choices.get(choice.id)
        if cfg is None:  # a restored session: its seats name specs this sidecar resolves again
            cfg = self._spec_config(choice.id)
        return self._get(cfg)

    def _choice(self, name: str, cfg: ProviderConfig, **more: str) -> ModelChoice:
        """The model choice of provider ``name`` (remembered: its seats are served by ``cfg``)."""
        cli = BY_KIND[cfg.kind].cli
        default = DEFAULT_MODEL if cli else cfg.kind  # a CLI's own default model
        choice = ModelChoice(id=f"{name}:{cfg.model}", provider=cfg.kind, model=cfg.model or default,
                             vendor=cli.vendor if cli else cfg.kind, **more)
        self._choices[choice.id] = cfg
        return choice

    def _spec_choice(self, spec: str, index: int) -> ModelChoice:
        try:
            cfg = self._spec_config(spec)
        except CouncilError as err:
            raise validation_error(err.message, fields={f"options.models.{index}": err.message},
                                   **{k: v for k, v in err.details.items() if k != "fields"}) from None
        name = spec.split(":", 1)[0].strip()
        return self._choice(name, cfg, family=cfg.model or name)  # spread by model

    def _spec_config(self, spec: str) -> ProviderConfig:
        """``provider:model`` (the provider a configured name or a kind; the model may hold colons, as Ollama's
        ``qwen2.5:7b``) → its config; a bare configured name keeps that provider's model."""
        name, _, model = spec.partition(":")
        name, model = name.strip(), model.strip()
        cfg = self.config.providers.get(name)
        if model and (cfg.kind if cfg is not None else name) in AGENT_CLI_KINDS and not CLI_MODEL.fullmatch(model):
            # the model goes into the CLI's argv: one it could read as an option (--yolo) or as two arguments is
            # refused (a workspace's settings can hold a seating map, a restored journal names its seats' specs)
            raise validation_error(f"“{model}” in model spec {spec!r} is no model name: an agent CLI's model starts "
                                   "with a letter or digit and holds no spaces", fields={"model": model})
        if cfg is not None:
            return cfg.model_copy(update={"model": model}) if model else cfg
        if name == "ollama":
            return ProviderConfig(kind="ollama", model=model, base_url=self.config.ollama_url)
        if name not in BY_KIND or BY_KIND[name].lent:  # the client's models are named by their ids, not by a spec
            known = sorted({*self.config.providers, *(k for k in KINDS if not BY_KIND[k].lent)})
            raise validation_error(f"unknown provider {name!r} in model spec {spec!r}: use provider:model with a "
                                   f"provider one of {', '.join(known)}", valid=known)
        return _adhoc(name, model, self.config)

    async def aclose(self) -> None:
        for provider in self._cache.values():
            try:
                await provider.aclose()
            except Exception:
                log.debug("closing %s failed", provider.describe(), exc_info=True)
        self._cache.clear()


def _adhoc(kind: str, model: str, config: CouncilConfig) -> ProviderConfig:
    """A provider named only by its kind (``options.provider``, a ``--models`` spec; an ``openai`` one takes
    ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``); an unknown one, or OpenAI's API without a key, is the caller's
    mistake."""
    try:
        return adhoc_provider(kind, model)
    except ConfigError as err:
        raise validation_error(str(err), fields={"options.provider": str(err)}) from None
    except ValidationError:
        known = sorted({*config.providers, *KINDS})
        raise validation_error(f"unknown provider {kind!r}", fields={"options.provider": f"one of {', '.join(known)}"},
                               valid=known) from None


def check_persona_providers(config: CouncilConfig, library: PersonaLibrary) -> None:
    """Refuse (a validation error naming it) a ``[persona_providers]`` entry naming no persona or a provider that
    is not configured; it used to be dropped with a log line."""
    names = {n.casefold() for n in library.names}
    for persona, provider in config.persona_providers.items():
        field = f"persona_providers.{persona}"
        if persona.casefold() not in names:  # matched by name, as the seating does
            near = library.get(persona)
            hint = f"did you mean “{near.name}”?" if near else f"the personas: {', '.join(library.names)}"
            raise validation_error(f"the config's [persona_providers] names “{persona}”, which is no persona "
                                   f"({hint})", fields={field: "no persona"}, valid=library.names)
        if provider not in config.providers:
            known = sorted(config.providers)
            raise validation_error(f"the config's [persona_providers] seats “{persona}” on “{provider}”, which is no "
                                   f"configured provider (configured: {', '.join(known) or 'none'})",
                                   fields={field: "no such provider"}, valid=known)


def resolve_seating_map(options: SessionOptions, library: PersonaLibrary) -> tuple[SessionOptions, list[SeatMiss]]:
    """The options with a persona → model map's keys resolved to persona names (as ``--personas`` resolves them),
    and the keys that name no persona (said, not refused)."""
    policy = options.seating
    if not isinstance(policy, dict):
        return options, []
    resolved: dict[str, str] = {}
    unknown: list[SeatMiss] = []
    for key, model in policy.items():
        persona = library.get(key)
        if persona is None:
            unknown.append(SeatMiss(persona=key, model_id=model, reason="no_persona", valid=library.names[:50]))
        else:
            resolved[persona.name] = model
    return options.model_copy(update={"seating": resolved}), unknown


def drop_unoffered(rt: SessionRuntime, client: ClientCapabilities | None) -> None:
    """Seats on a client model the client no longer offers fall back to the chat's model before the turn's first
    call (``seat.fellBack``, one note per model). No client, or one that lists no models this turn: nothing."""
    seating = rt.session.seating if rt.created else None
    if seating is None or client is None or not client.models:
        return
    offered = {m.id for m in client.models}
    gone = dict.fromkeys(x.model.id for x in seating.seats if x.model.provider == "client"
                         and x.model.id != seating.chair.id and x.model.id not in offered)
    for model_id in gone:
        rt.record(r.SeatFellBack(at=rt.clock(), model_id=model_id, reason="model_unavailable",
                                 detail="the client no longer offers this model"))
