"""Which model a tool call of ``council mcp`` runs on: the MCP client's own (sampling) or the server's (a configured
default, else the agent CLIs found on PATH, a local Ollama, the embedded model); the order of choice and the errors
are the README's "The client's own model (MCP sampling)". No model at all is one
``validation`` error before the council starts; a client that refuses its sampling requests is one ``permission``
error after the session stops, with the fix — never "every advisor failed". A call that ends because the client's
model failed it (malformed or unusable replies, no answer in time) is a ``validation`` error (reason
``client_model_failed``, with what the client sent): the client's fault, never ``internal``, never ``permission``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from council.config import CouncilConfig
from council.errors import CouncilError, ErrorCode, permission_error, validation_error
from council.present import errors as words
from council.protocol.seating import ClientModel
from council.providers.registry import build_provider, choose_default, found_clis
from council.providers.sampling import CHAT_MODEL_ID, Route, SamplingBridge

log = logging.getLogger(__name__)

DEFAULT_HINTS = ("claude", "gpt", "gemini")
MAX_FAULTS = 5  # what the client sent wrong, listed in an error's details


@dataclass(frozen=True)
class SamplingPolicy:
    """Whether tool calls may run on the client's model, and the seat hints."""

    enabled: bool = True
    hints: tuple[str, ...] = DEFAULT_HINTS
    why_not: str = ""
    required: bool = False  # ``--provider client``: the client's model or nothing


def parse_hints(text: str | None) -> tuple[str, ...]:
    """``a,b,c`` → the hints (``None``: the defaults; ``""`` or ``none``: none, every seat on the client's choice)."""
    if text is None:
        return DEFAULT_HINTS
    if text.strip().lower() == "none":
        return ()
    return tuple(dict.fromkeys(h.strip() for h in text.split(",") if h.strip()))


def seat_models(hints: tuple[str, ...]) -> list[ClientModel]:
    """The models a session may seat on: the client's own choice (the chair) and one per hint."""
    chair = ClientModel(id=CHAT_MODEL_ID, vendor="mcp", family="client", name=words.CHAT_MODEL_NAME)
    return [chair, *(ClientModel(id=h, vendor="mcp", family=h, name=h) for h in hints if h != CHAT_MODEL_ID)]


def client_model_failed(err: CouncilError, route: Route) -> bool:
    """Whether ``err`` ends a call because the client's model failed it — every advisor's reply unusable or failed
    (a consult's ``causes``; Council's own crash is not one), or a review role's after replies the client's model
    failed (``route.faults``) — not Council's fault: never ``internal``."""
    causes = err.details.get("causes")
    if err.details.get("reason") == "models_failed" and isinstance(causes, dict) and causes:
        return "crashed" not in causes.values()
    return err.code is ErrorCode.INTERNAL and err.details.get("reason") == "roles_failed" and bool(route.faults)


class CallModels:
    """Puts each tool call on a model: routes the client's model for the call's session, or checks that the server
    has one of its own."""

    def __init__(self, config: CouncilConfig, bridge: SamplingBridge | None, policy: SamplingPolicy) -> None:
        self.config = config
        self.bridge = bridge
        self.policy = policy

    @property
    def bridge_timeout(self) -> float:
        """Seconds one call on the client's model may take (0 without the bridge)."""
        return self.bridge.timeout if self.bridge is not None else 0.0

    @asynccontextmanager
    async def consult(self, ctx: Any, session_id: str) -> AsyncIterator[dict[str, Any]]:
        """Keyword arguments for ``CouncilService.consult`` (the client's models, or none: the server's)."""
        async with self._routed(ctx, session_id) as chair:
            yield {} if chair is None else {"client_model": chair, "client_models": seat_models(self.policy.hints)}

    @asynccontextmanager
    async def review(self, ctx: Any, review_id: str) -> AsyncIterator[dict[str, Any]]:
        """Keyword arguments for ``ReviewParams`` (the roles on the client's model, or the server's)."""
        from council.protocol.methods import ClientCapabilities

        async with self._routed(ctx, review_id) as chair:
            yield {} if chair is None else {"provider": "client", "model": chair, "client": ClientCapabilities(
                completion=True, completion_model=chair, chat_model_id=CHAT_MODEL_ID)}

    @asynccontextmanager
    async def _routed(self, ctx: Any, session_id: str) -> AsyncIterator[str | None]:
        client = ctx.link.client_capabilities
        if self.bridge is None or not self.policy.enabled or client is None or client.sampling is None:
            if self.policy.required:
                raise validation_error(words.no_sampling_required(), reason="no_model", sampling=False)
            await self.preflight()
            yield None
            return
        with self.bridge.route(session_id, ctx.link, ctx.request_id) as route:
            try:
                yield words.CHAT_MODEL_NAME
            except CouncilError as err:
                if route.refusal is not None:
                    raise permission_error(words.sampling_refused(route.refusal), reason="sampling_refused",
                                           client_said=route.refusal,
                                           **{k: v for k, v in err.details.items() if k == "sessionId"}) from None
                if client_model_failed(err, route):
                    raise validation_error(err.message, **{**err.details, "reason": "client_model_failed",
                                                           "client_sent": route.faults[:MAX_FAULTS]}) from None
                raise

    async def preflight(self) -> None:
        """A validation error when the automatic selection would end at an embedded model that cannot run (a
        configured or explicit provider speaks for itself when it fails; agent CLIs found on PATH that are signed in
        seat the council)."""
        if self.config.default or await found_clis(self.config, client_available=False):
            return
        _, cfg, reason = await choose_default(self.config, client_available=False)
        if cfg.kind != "embedded":
            return
        provider = build_provider(cfg)
        try:
            status = await provider.check()
        finally:
            await provider.aclose()
        if status.available:
            return
        log.warning("no model: %s; the embedded model: %s", reason, status.detail)
        raise validation_error(words.no_model(self.config.ollama_url, status.detail), reason="no_model",
                               sampling=False, embedded=status.detail)
