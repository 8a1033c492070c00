"""Stopping keeps what the session finished: the records that drop an open cycle and mark the session stopped."""

from __future__ import annotations

import pytest
from unit_helpers import Builder

from council.errors import CouncilError
from council.session.state import records as r
from council.session.state.entities import DiscussionStatus
from council.session.state.entities import SessionStatus as S
from council.session.state.records import stable_prefix
from council.session.state.reducer import replay


def two_cycles_and_a_half(b: Builder) -> None:
    """Two concluded cycles (cycle 1 with options and votes), then cycle 3 with one contribution and a vote."""
    b.debating()
    b.run_cycle(1)
    b.options()
    b.vote("Alpha", "A", 1)
    b.run_cycle(2)
    b.start_cycle(3)
    b.speak("Alpha", 3)
    b.vote("Alpha", "B", 3)


def test_dropping_the_open_cycle_leaves_the_session_as_after_the_last_concluded_one():
    kept, b = Builder(), Builder()
    kept.debating()
    kept.run_cycle(1)
    kept.options()
    kept.vote("Alpha", "A", 1)
    kept.run_cycle(2)
    two_cycles_and_a_half(b)
    b.apply(r.CycleDropped(at=b.at(), cycle=3))
    assert b.s.debate_cycles == 2 and [d.cycle_number for d in b.s.discussions] == [1, 2]
    assert b.s.message_turns == kept.s.message_turns and b.s.responses == kept.s.responses
    assert b.s.votes == kept.s.votes and b.s.options == kept.s.options
    b.run_cycle(3)  # the next cycle gets the number again, its turns the next sequence numbers
    assert b.s.debate_cycles == 3 and b.s.discussions[-1].status is DiscussionStatus.CONCLUDED


def test_dropping_cycle_one_takes_back_its_options_and_only_the_open_cycle_can_be_dropped():
    b = Builder()
    b.debating()
    b.start_cycle(1)
    b.speak("Alpha", 1)
    b.options()
    with pytest.raises(CouncilError, match="only the cycle in progress"):
        b.apply(r.CycleDropped(at=b.at(), cycle=2))
    b.apply(r.CycleDropped(at=b.at(), cycle=1))
    assert b.s.options == [] and b.s.message_turns == [] and b.s.debate_cycles == 0
    b.run_cycle(1)
    with pytest.raises(CouncilError, match="only the cycle in progress"):
        b.apply(r.CycleDropped(at=b.at(), cycle=1))  # a concluded cycle stays


def test_the_stop_marker_is_set_cleared_and_gone_once_cancelled():
    b = Builder()
    b.clarifying()
    b.apply(r.SessionStopped(at=b.at(), reason="stopped by the user"))
    assert b.s.stopped and b.s.status is S.CLARIFYING  # the status does not change
    b.apply(r.SessionResumed(at=b.at()))
    assert not b.s.stopped
    with pytest.raises(CouncilError, match="not stopped"):
        b.apply(r.SessionResumed(at=b.at()))
    b.apply(r.SessionStopped(at=b.at()))
    b.status(S.CANCELLED)
    assert not b.s.stopped
    with pytest.raises(CouncilError, match="cancelled session cannot be stopped"):
        b.apply(r.SessionStopped(at=b.at()))


def test_replay_and_restore_keep_a_stop():
    b = Builder()
    two_cycles_and_a_half(b)
    b.apply(r.CycleDropped(at=b.at(), cycle=3))
    b.apply(r.SessionStopped(at=b.at()))
    assert stable_prefix(b.journal) == b.journal  # the dropped cycle is closed: nothing is cut
    assert replay(b.journal) == b.s and b.s.stopped
    b.apply(r.SessionResumed(at=b.at()))
    b.start_cycle(3)
    b.speak("Alpha", 3)  # the old sidecar died in the resumed cycle: restore cuts it, the resume stays
    restored = replay(stable_prefix(b.journal))
    assert restored.debate_cycles == 2 and not restored.stopped and restored.status is S.DEBATING
