"""Stopping and resuming a session without losing what it finished.

A stop (``council/stop``, or ``$/cancelRequest`` on a running turn) keeps every concluded debate cycle, the
answers and the assumptions, drops the cycle that had not concluded (as ``journal.stable_prefix`` does for a
restore) and marks the session stopped; its status does not change, so ``retry`` continues from exactly there.
The same drop takes back a cycle in which every advisor failed, so a retry runs that cycle again.

The reducer applies the three records with :func:`drop_cycle` and :func:`set_stopped`; :func:`pause`,
:func:`drop_open_cycle` and :func:`resume` are what the engine and the service call on a live session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from council.errors import validation_error
from council.session.state import records as r
from council.session.state.entities import ConversationSession, DiscussionStatus
from council.session.state.transitions import TERMINAL

if TYPE_CHECKING:
    from council.session.state.runtime import SessionRuntime


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


# --- on a live session ------------------------------------------------------------------------------------------
def drop_open_cycle(rt: SessionRuntime, reason: str) -> int | None:
    """Drop the cycle in progress, if any; returns its number."""
    cycle = open_cycle(rt.session)
    if cycle is not None:
        rt.record(r.CycleDropped(at=rt.clock(), cycle=cycle, reason=reason))
    return cycle


def pause(rt: SessionRuntime, reason: str) -> bool:
    """Stop a session that was interrupted mid-turn; False when there is nothing to pause (not created yet,
    completed or cancelled)."""
    if not rt.created or rt.session.status in TERMINAL:
        return False
    if rt.session.stopped and open_cycle(rt.session) is None:
        return True  # stopped already (a stop and the client's $/cancelRequest for the same turn)
    drop_open_cycle(rt, "stopped")
    rt.record(r.SessionStopped(at=rt.clock(), reason=reason))
    return True


def resume(rt: SessionRuntime) -> None:
    """Clear the stop marker as the session moves again (nothing when it was not stopped)."""
    if rt.session.stopped:
        rt.record(r.SessionResumed(at=rt.clock()))
