"""Chooses the providers a session uses and keeps them alive across sessions.

Order (issue 3): the session's explicit choice → the configured default → the client's own model when the client
offers one → a local Ollama → the embedded model. Personas mapped to a provider in the config get that one. The
choice and its reason are shown to the user through the session's metadata and a progress event.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from pydantic import ValidationError

from council.config import CouncilConfig, ProviderConfig, ProviderKind
from council.errors import validation_error
from council.protocol.methods import ClientCapabilities, SessionOptions
from council.providers.base import Provider
from council.providers.client import ClientBridge
from council.providers.registry import build_provider, choose_default, provider_for_persona
from council.session.calls import ProviderPicker

log = logging.getLogger(__name__)

CACHE = 16
KINDS: tuple[str, ...] = ProviderKind.__args__  # type: ignore[attr-defined]


class ProviderHub:
    def __init__(self, config: CouncilConfig, bridge: ClientBridge | None = None) -> None:
        self.config = config
        self.bridge = bridge
        self._cache: OrderedDict[str, Provider] = OrderedDict()

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

    async def picker(self, options: SessionOptions, client: ClientCapabilities) -> tuple[ProviderPicker, Provider]:
        """A role → provider function for one session, and its default provider (why it was chosen is logged)."""
        if options.provider:
            cfg = self.config.providers.get(options.provider)
            if cfg is None:
                cfg = _adhoc(options.provider, options.model or "", self.config)
            elif options.model:
                cfg = cfg.model_copy(update={"model": options.model})
            reason = f"provider {options.provider!r} requested for this session"
        else:
            client_ok = client.completion and self.bridge is not None
            _, cfg, reason = await choose_default(self.config, client_available=client_ok)
            if cfg.kind == "client" and client.completion_model:
                cfg = cfg.model_copy(update={"model": client.completion_model})
            if options.model and cfg.kind != "client":
                cfg = cfg.model_copy(update={"model": options.model})
        default = self._get(cfg)
        per_persona: dict[str, Provider] = {}

        def pick(role: str) -> Provider:
            if role not in per_persona:
                name = provider_for_persona(self.config, role)
                per_persona[role] = self._get(self.config.providers[name]) if name else default
            return per_persona[role]

        log.info("models for a new session: %s (%s)", reason, default.describe())
        return pick, default

    async def aclose(self) -> None:
        for provider in self._cache.values():
            try:
                await provider.aclose()
            except Exception:
                log.debug("closing %s failed", provider.describe(), exc_info=True)
        self._cache.clear()


def _adhoc(kind: str, model: str, config: CouncilConfig) -> ProviderConfig:
    """A provider named only by its kind (``options.provider``); an unknown one is the caller's mistake."""
    try:
        return ProviderConfig(kind=kind, model=model)  # type: ignore[arg-type]
    except ValidationError:
        known = sorted({*config.providers, *KINDS})
        raise validation_error(f"unknown provider {kind!r}", fields={"options.provider": f"one of {', '.join(known)}"},
                               valid=known) from None
