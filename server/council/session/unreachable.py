"""Models a turn found it cannot use at all, so that it does not try them again in that turn.

A model is out for the turn when its server refused the connection or its host name did not resolve (``unreachable``:
every model on that host is out), or when the client said the model is gone (``model_unavailable``) or that the user
did not allow it (``no_consent``). The call that finds it out makes its retries as usual; every later call on that
model in the same turn is not made: a seat then falls back to the chat's model, and a call on the chat's model fails
at once with the same cause (``council.session.calls``). When no seat is left with a model that may still work, the
turn stops with one line (:func:`stranded`, used by the clarifier). Transient failures (429, 503, timeouts, a dropped
connection) are not remembered: they are retried as always. A new turn (the user's Retry) tries every model again.
"""

from __future__ import annotations

from collections.abc import Callable

from council.errors import root_cause
from council.providers.base import Provider, ProviderError
from council.session.failure import ModelFailure, host_of
from council.session.runtime import Turn
from council.session.seating import CHAIR_ROLES

GONE = frozenset({"unreachable", "model_unavailable", "no_consent"})  # ProviderError kinds that rule a model out


def _model_key(provider: Provider) -> str:
    return f"{provider.id}:{getattr(provider, 'model_id', None) or provider.model}"


def known(rt: Turn, provider: Provider) -> ModelFailure | None:
    """Why ``provider``'s model is out for this turn (None: it may work)."""
    host = host_of(provider)
    found = rt.gone.get(f"host:{host}") if host else None
    return found or rt.gone.get(_model_key(provider))


def learn(rt: Turn, provider: Provider, exc: BaseException, failure: ModelFailure) -> None:
    """Remember ``provider``'s model as out for the turn when ``exc`` says it cannot be used at all."""
    root = root_cause(exc)
    if not isinstance(root, ProviderError) or root.kind not in GONE:
        return
    host = host_of(provider)
    rt.gone[f"host:{host}" if root.kind == "unreachable" and host else _model_key(provider)] = failure


def stranded(rt: Turn, pick: Callable[[str], Provider]) -> dict[str, ModelFailure] | None:
    """The chat's model and every persona's seat are out for this turn: persona → why (None: some seat may still
    work, on its own model or on the chat's after a fallback)."""
    if known(rt, pick(CHAIR_ROLES[0])) is None:
        return None
    seating = rt.session.seating
    roles = [s.persona for s in seating.seats] if seating else [p.name for p in rt.session.personas]
    out: dict[str, ModelFailure] = {}
    for role in roles:
        why = known(rt, pick(role))
        if why is None:
            return None
        out[role] = why
    return out or None
