"""Stopping and resuming a session without losing what it finished.

A stop (``council/stop``, or ``$/cancelRequest`` on a running turn) keeps every concluded debate cycle, the
answers and the assumptions, drops the cycle that had not concluded (as ``journal.stable_prefix`` does for a
restore) and marks the session stopped; its status does not change, so ``retry`` continues from exactly there.
The same drop takes back a cycle in which every advisor failed, so a retry runs that cycle again.

The reducer applies the three records with :func:`drop_cycle` and :func:`set_stopped`; a live session records them
with ``SessionRuntime.pause``, ``drop_open_cycle`` and ``resume`` (``council.session.state.runtime``).
"""

from __future__ import annotations

from council.errors import validation_error
from council.session.state.entities import ConversationSession, DiscussionStatus
from council.session.state.transitions import TERMINAL


def open_cycle(s: ConversationSession) -> int | None:
    """The number of the debate cycle in progress, if one is."""
    if s.discussions and s.discussions[-1].status is DiscussionStatus.IN_PROGRESS:
        return s.discussions[-1].cycle_number
    return None


def drop_cycle(s: ConversationSession, cycle: int) -> None:
    """Take back the cycle in progress: its discussion, turns, responses and votes (and, in cycle 1, the options
    it proposed)."""
    if open_cycle(s) != cycle:
        raise validation_error("only the cycle in progress can be dropped", cycle=cycle, open=open_cycle(s))
    turns = set(s.discussions[-1].message_turn_ids)
    s.message_turns = [t for t in s.message_turns if t.turn_id not in turns]  # the cycle's turns are the tail
    s.responses = [x for x in s.responses if x.cycle != cycle]
    s.votes = [v for v in s.votes if v.cycle != cycle]
    if cycle == 1:
        s.options = []
    s.discussions.pop()
    s.debate_cycles = cycle - 1


def set_stopped(s: ConversationSession, stopped: bool) -> None:
    if s.status in TERMINAL:
        raise validation_error(f"a {s.status.value} session cannot be stopped or resumed", status=s.status.value)
    if not stopped and not s.stopped:
        raise validation_error("the session is not stopped")
    s.stopped = stopped
