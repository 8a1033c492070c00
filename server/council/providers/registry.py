"""Building providers from config, picking the default one, and reporting their health for ``council doctor``.

Selection order: see README, "Models" (the agent CLIs found on PATH count when their own sign-in check passes,
no model call, :mod:`council.providers.found`, and seat the council together; a local Ollama counts when it answers
within ~300 ms). The kinds are the provider table's (:mod:`council.providers.kinds`); their modules are imported
lazily by kind so optional dependencies stay optional, and httpx loads only when an HTTP provider (or the Ollama
probe) is used. :func:`metered` says which models cost the user per call (README, "The cost before it is spent": the
council sends no speculative calls to them by default).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from pydantic import ValidationError

from council.camel import CamelModel
from council.config import ConfigError, CouncilConfig, ProviderConfig, ProviderKind
from council.providers.base import Provider, ProviderError, ProviderStatus
from council.providers.kinds import AGENT_CLI_KINDS, BY_KIND, FREE_KINDS, LOOPBACK_KINDS, options_model, provider_class

log = logging.getLogger(__name__)

OLLAMA_PROBE_SECONDS = 0.3
CHECK_SECONDS = 5.0


def metered(provider: Provider) -> bool:
    """Whether a call on ``provider`` may cost the user: a client's model (VS Code's chat models bill premium
    requests; an MCP client's sampling model is the client's to bill), a remote HTTP server; not an in-process model
    nor a server on this machine (``127.0.0.1``, ``localhost``, ``::1``)."""
    if provider.id in FREE_KINDS:  # in-process: a call costs nothing but time
        return False
    if provider.id in LOOPBACK_KINDS:  # free when the server runs on this machine, else metered
        from council.providers.http_common import is_loopback  # httpx: only for an HTTP provider

        return not is_loopback(getattr(provider, "base_url", "") or "")
    return True


def build_provider(cfg: ProviderConfig, *, bridge: Any = None) -> Provider:
    """A provider for ``cfg``. Bad options or a missing bridge raise ``ProviderError(kind="config")``."""
    try:
        cls = provider_class(cfg.kind)
        options = options_model(cfg.kind)
        if options is not None:  # the table's model: a kind's options are checked before it is built
            options.model_validate(cfg.options)
        if cfg.kind == "scripted":
            return cls(model=cfg.model or "scripted", script=cfg.options.get("script"))
        if BY_KIND[cfg.kind].lent:
            if bridge is None:
                raise ProviderError(
                    "the client provider lends the editor's model and only works inside a client "
                    "that answers council/complete (VS Code); pick another provider here",
                    kind="config",
                )
            return cls(bridge, model=cfg.model or cfg.kind)
        return cls(cfg)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'options'}: {e['msg']}" for e in err.errors())
        raise ProviderError(f"invalid options for the {cfg.kind} provider: {problems}", kind="config") from None


def _configured_of_kind(config: CouncilConfig, kind: ProviderKind) -> tuple[str, ProviderConfig] | None:
    return next(((name, cfg) for name, cfg in config.providers.items() if cfg.kind == kind), None)


async def choose_default(config: CouncilConfig, *, client_available: bool,
                         probe_ollama: bool = True) -> tuple[str, ProviderConfig, str]:
    """``(provider name, its config, why it was chosen)`` following the selection order above."""
    if config.default:
        return config.default, config.provider(config.default), f"configured default {config.default!r}"
    if client_available:
        name, cfg = _configured_of_kind(config, "client") or ("client", ProviderConfig(kind="client", model="client"))
        return name, cfg, "the client offers its own chat model"
    if probe_ollama:
        from council.providers.ollama import list_models  # httpx: only when probing

        pulled = await list_models(config.ollama_url, timeout=OLLAMA_PROBE_SECONDS)
        if pulled:
            found = _configured_of_kind(config, "ollama")
            if found and found[1].model and found[1].model in pulled:
                return found[0], found[1], f"local Ollama answers and has {found[1].model}"
            cfg = ProviderConfig(kind="ollama", model=pulled[0], base_url=config.ollama_url)
            return "ollama", cfg, f"local Ollama answers at {config.ollama_url}; using its first model {pulled[0]}"
        if pulled == []:
            log.info("Ollama answers at %s but has no models pulled; skipping it", config.ollama_url)
    name, cfg = _configured_of_kind(config, "embedded") or ("embedded", ProviderConfig(kind="embedded"))
    return name, cfg, "no configured default, no client model and no local Ollama: using the embedded SmolLM2"


async def found_clis(config: CouncilConfig, *, client_available: bool) -> list[ProviderConfig]:
    """The agent CLIs automatic selection seats the council on, the chair's first: those on PATH that are signed in
    (their own checks, no model call), when no default is configured and the client lends no model of its own (else
    none)."""
    if config.default or client_available or not config.agent_clis:
        return []
    from council.providers.found import answering  # checks each CLI's sign-in once per process

    return await answering(config)


def provider_for_persona(config: CouncilConfig, persona_name: str) -> str | None:
    """The provider name configured for ``persona_name`` (case-insensitive), or None for the default."""
    mapping = {k.casefold(): v for k, v in config.persona_providers.items()}
    name = config.persona_providers.get(persona_name) or mapping.get(persona_name.casefold())
    if name is not None and name not in config.providers:
        log.warning("persona %r is mapped to provider %r, which is not configured; using the default",
                    persona_name, name)
        return None
    return name


# A wire model kept here, beside the check that fills it, so that providers import nothing of the wire;
# council.protocol.methods re-exports it.
class ProviderInfo(CamelModel):
    id: str
    kind: str
    model: str
    available: bool
    detail: str = ""


async def _status(name: str, cfg: ProviderConfig, ask_clis: bool) -> ProviderInfo:
    provider: Provider | None = None
    limit = CHECK_SECONDS
    if cfg.kind in AGENT_CLI_KINDS:  # a tiny real call: a Node CLI takes seconds to start
        from council.providers.found import CHECK_DEADLINE

        limit = CHECK_DEADLINE
    try:
        provider = build_provider(cfg)
        with anyio.fail_after(limit):
            if cfg.kind in AGENT_CLI_KINDS and not ask_clis:  # its own sign-in check: no model call
                status = await provider.signed_in()  # type: ignore[attr-defined]
            else:
                status = await provider.check()
    except (ProviderError, ConfigError) as err:  # a ProviderError's text is its message
        status = ProviderStatus(available=False, detail=str(err))
    except TimeoutError:
        status = ProviderStatus(available=False, detail=f"no answer within {limit:.0f} s")
    except Exception as err:  # doctor must report, not crash
        log.debug("check of %s failed", name, exc_info=True)
        status = ProviderStatus(available=False, detail=f"{type(err).__name__}: {err}")
    finally:
        if provider is not None:
            await provider.aclose()
    return ProviderInfo(id=name, kind=cfg.kind, model=provider.model if provider is not None else cfg.model,
                        available=status.available, detail=status.detail.splitlines()[0] if status.detail else "")


async def provider_statuses(config: CouncilConfig, *, ask_clis: bool = False) -> list[ProviderInfo]:
    """One entry per configured provider, plus local Ollama, the embedded model and each agent CLI on PATH of a kind
    no provider is configured for (unless ``config`` turns them off: :func:`found_clis`), checked concurrently. An
    agent CLI is checked by its own sign-in check, no model call; ``ask_clis`` (``council doctor``) also asks each
    one tiny prompt: a billed model call per CLI."""
    entries = list(config.providers.items())
    if not any(cfg.kind == "ollama" for _, cfg in entries):
        from council.providers.ollama import list_models

        pulled = await list_models(config.ollama_url, timeout=OLLAMA_PROBE_SECONDS)
        entries.append(("ollama", ProviderConfig(kind="ollama", model=(pulled or ["(none)"])[0],
                                                 base_url=config.ollama_url)))
    if not any(cfg.kind == "embedded" for _, cfg in entries):
        entries.append(("embedded", ProviderConfig(kind="embedded")))
    results: list[ProviderInfo | None] = [None] * len(entries)
    found: list[ProviderInfo] = []

    async def run(i: int, name: str, cfg: ProviderConfig) -> None:
        results[i] = await _status(name, cfg, ask_clis)

    async def found_on_path() -> None:
        from council.providers.found import DEFAULT_MODEL, statuses

        configured = {cfg.kind for cfg in config.providers.values()}
        found.extend(ProviderInfo(id=kind, kind=kind, model=DEFAULT_MODEL, available=status.available,
                                  detail=status.detail.splitlines()[0] if status.detail else "")
                     for kind, status in (await statuses(called=ask_clis)).items() if kind not in configured)

    async with anyio.create_task_group() as tg:
        for i, (name, cfg) in enumerate(entries):
            tg.start_soon(run, i, name, cfg)
        if config.agent_clis:
            tg.start_soon(found_on_path)
    return [r for r in results if r is not None] + found
