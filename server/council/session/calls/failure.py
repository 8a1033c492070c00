"""Why a model call failed: the one place a provider failure is classified (the data, ``ModelFailure``, lives in
``state.outputs``; ``council.present.failures`` words each kind once).

:func:`failure_of` unwraps a ``ProviderError`` (maybe inside an ``ExceptionGroup``) to its root and sorts it into a
``FailureKind``; the technical ``detail`` goes to logs and error details, never into the sentence a person reads.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from council.errors import root_cause
from council.providers.base import Provider, ProviderError
from council.session.state.outputs import FailureKind, ModelFailure
from council.session.state.seating import FallbackReason

MAX_DETAIL = 300

# a status a client's model reports in its own words ("Request Failed: 529 …", "HTTP 429", "status code 503")
_STATUS_IN_TEXT = re.compile(r"(?:HTTP|status(?: code)?|Request Failed:?|Error:?)\s*(\d{3})\b", re.IGNORECASE)


def failure_of(exc: BaseException, provider: Provider | None = None) -> ModelFailure:
    """Classify ``exc`` (a ProviderError, a group wrapping one, or a crash) raised while ``provider`` ran."""
    root = root_cause(exc)
    where = {"provider": provider.id if provider else "", "model": provider.model if provider else "",
             "host": host_of(provider)}
    if not isinstance(root, ProviderError):
        return ModelFailure(kind="crashed", detail=_clip(f"{type(root).__name__}: {root}"), **where)
    status = root.status or _status_in(root.message)
    kind = _kind(root, status, where["provider"])
    return ModelFailure(kind=kind, status=status, retryable=root.retryable or kind in _TRANSIENT,
                        detail=_clip(root.message), **where)


def fallback_reason(f: ModelFailure) -> FallbackReason:
    """Why a seat leaves its model: the client's own reason when it gave one, else the model failed."""
    return f.kind if f.kind in ("model_unavailable", "no_consent") else "model_failed"  # type: ignore[return-value]


def malformed(provider: Provider | None, detail: str) -> ModelFailure:
    """A reply that stayed unusable after its one repair attempt."""
    return ModelFailure(kind="malformed", provider=provider.id if provider else "",
                        model=provider.model if provider else "", host=host_of(provider), retryable=True,
                        detail=_clip(detail))


_TRANSIENT = frozenset({"rate_limited", "overloaded", "server_error", "timeout", "unreachable"})


def _kind(err: ProviderError, status: int | None, provider: str) -> FailureKind:
    text = err.message.lower()
    if status in (401, 403):
        return "key_rejected"
    if status == 404:
        return "model_not_found"
    if status == 429 or err.kind == "rate_limit":
        return "rate_limited"
    if status in (503, 529) or "overloaded" in text:
        return "overloaded"
    if (status is not None and status >= 500) or err.kind == "server":
        return "server_error"
    by_kind: dict[str, FailureKind] = {"timeout": "timeout", "connection": "unreachable", "unreachable": "unreachable",
                                       "config": "not_configured", "malformed": "malformed",
                                       "model_unavailable": "model_unavailable", "model_not_found": "model_not_found",
                                       "no_consent": "no_consent", "model_failed": "client_model",
                                       "over_budget": "over_budget"}
    if err.kind in by_kind:
        return by_kind[err.kind]
    if provider == "client" and err.kind == "client":
        return "client_model"
    return "refused" if status is not None and 400 <= status < 500 else "crashed"


def _status_in(text: str) -> int | None:
    match = _STATUS_IN_TEXT.search(text)
    status = int(match.group(1)) if match else 0
    return status if 400 <= status < 600 else None


def host_of(provider: Provider | None) -> str | None:
    """``host[:port]`` of an HTTP provider's server (None for in-process and client-backed models)."""
    url = getattr(provider, "base_url", None)
    if not isinstance(url, str) or not url:
        return None
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname


def _clip(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"
