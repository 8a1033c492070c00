"""The session status state machine as an explicit transition table (seed 002, plus one documented extension).

    created    → clarifying | debating | cancelled
    clarifying → clarifying (more questions / revisiting deferred) | debating | final | cancelled
    debating   → debating (next cycle) | final | cancelled
    final      → completed | cancelled
    completed  → debating   (extension: "extend debate" after the debate stopped at its cycle limit)
    completed  → clarifying (seed 002: revisiting a skipped or deferred question after the answer)
    cancelled  → (terminal)

A stop (``council/stop``) is not a transition: the session keeps its status and gets the ``stopped`` marker
(``state/pause.py``); ``retry`` clears it and continues in the same status. Only cancel leaves for ``cancelled``.
"""

from __future__ import annotations

from council.errors import validation_error
from council.session.state.entities import SessionStatus as S

TRANSITIONS: dict[S, frozenset[S]] = {
    S.CREATED: frozenset({S.CLARIFYING, S.DEBATING, S.CANCELLED}),
    S.CLARIFYING: frozenset({S.CLARIFYING, S.DEBATING, S.FINAL, S.CANCELLED}),
    S.DEBATING: frozenset({S.DEBATING, S.FINAL, S.CANCELLED}),
    S.FINAL: frozenset({S.COMPLETED, S.CANCELLED}),
    S.COMPLETED: frozenset({S.DEBATING, S.CLARIFYING}),
    S.CANCELLED: frozenset(),
}

TERMINAL: frozenset[S] = frozenset({S.COMPLETED, S.CANCELLED})


def can_transition(current: S, target: S) -> bool:
    return target in TRANSITIONS[current]


def check_transition(current: S, target: S) -> None:
    """Raise a validation error for an illegal transition."""
    if not can_transition(current, target):
        raise validation_error(
            f"illegal status transition {current.value} → {target.value}",
            current=current.value,
            target=target.value,
            allowed=sorted(s.value for s in TRANSITIONS[current]),
        )
