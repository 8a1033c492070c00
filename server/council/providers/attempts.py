"""May a provider send a failed request again? Asked of whoever made the call, before every retry of its own.

An HTTP provider retries a request the server failed (429, 5xx, a dropped connection) by itself
(``council.providers.retry``). Each attempt reaches the model and may be paid for, so a session counts every attempt
against the bound it stated and its budget: around each model call it sets a gate (:func:`retry_gate`) that says
whether one more attempt fits, and books it when it does. Without a gate (``council doctor``, a caller with no
budget) a provider retries as its policy says. The gate lives in a context variable, so concurrent calls (seats of
one debate cycle) each ask their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

RetryGate = Callable[[], bool]

_gate: ContextVar[RetryGate | None] = ContextVar("council_retry_gate", default=None)


def may_retry() -> bool:
    """Whether the caller lets the provider send the failed request once more (and counts it if so)."""
    gate = _gate.get()
    return True if gate is None else gate()


@contextmanager
def retry_gate(gate: RetryGate) -> Iterator[None]:
    """Within the block, a provider's own retries ask ``gate`` first."""
    token = _gate.set(gate)
    try:
        yield
    finally:
        _gate.reset(token)
