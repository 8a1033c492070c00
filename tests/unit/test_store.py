"""SessionStore: isolation, TTL eviction with an injected clock, the session cap."""

from __future__ import annotations

import pytest
from unit_helpers import T0, SilentObserver

from council.errors import CouncilError, ErrorCode
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state import records as r
from council.session.state.entities import Participant, ParticipantType, SessionSettings, SessionStatus
from council.session.state.store import IDLE_FACTOR, SessionStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def store(clock: Clock, **kw) -> SessionStore:
    return SessionStore(SilentObserver(), clock=clock, **kw)


def start(st: SessionStore):
    live = st.create()
    rt = live.rt
    rt.record(
        r.SessionCreated(
            at=T0,
            session_id=rt.session_id,
            user=Participant(type=ParticipantType.USER, name="U"),
            moderator=Participant(type=ParticipantType.SYSTEM, name="M"),
            request_text="q",
            settings=SessionSettings(),
            correlation_id="c",
        )
    )
    return live


def cancel(live) -> None:
    live.rt.record(r.StatusSet(at=T0, status=SessionStatus.CANCELLED))


def test_get_returns_created_session(clock):
    st = store(clock)
    rt = start(st)
    assert st.get(rt.rt.session_id) is rt and len(st) == 1


def test_unknown_id_is_a_validation_error(clock):
    st = store(clock)
    with pytest.raises(CouncilError) as info:
        st.get("nope")
    assert info.value.code is ErrorCode.VALIDATION
    assert info.value.details == {"sessionId": "nope", "reason": "unknown_session"}


def test_created_but_not_started_is_unknown(clock):
    st = store(clock)
    rt = st.create()
    with pytest.raises(CouncilError, match="unknown session"):
        st.get(rt.rt.session_id)


def test_finished_session_evicted_after_ttl(clock):
    st = store(clock, ttl=100)
    rt = start(st)
    cancel(rt)
    assert rt.rt.finished_at == clock.now
    clock.now += 100
    assert st.get(rt.rt.session_id) is rt  # exactly at the TTL: still there
    clock.now += 1
    with pytest.raises(CouncilError, match="expired"):
        st.get(rt.rt.session_id)
    assert len(st) == 0


def test_unfinished_session_survives_ttl_but_not_idle_ttl(clock):
    st = store(clock, ttl=100)
    rt = start(st)
    clock.now += 100 * IDLE_FACTOR
    assert st.evict() == []
    clock.now += 1
    assert st.evict() == [rt.rt.session_id]


def test_activity_resets_idle_clock(clock):
    st = store(clock, ttl=10)
    rt = start(st)
    clock.now += 10 * IDLE_FACTOR
    rt.rt.record(r.StatusSet(at=T0, status=SessionStatus.CLARIFYING))
    clock.now += 10 * IDLE_FACTOR
    assert st.evict() == []


async def test_locked_session_not_evicted(clock):
    st = store(clock, ttl=1)
    rt = start(st)
    cancel(rt)
    clock.now += 1000
    async with rt.lock:  # a turn is running on it
        assert st.evict() == []
    assert st.evict() == [rt.rt.session_id]


def test_stillborn_session_dropped_after_a_minute(clock):
    st = store(clock)
    rt = st.create()
    clock.now += 60
    assert st.evict() == []
    clock.now += 1
    assert st.evict() == [rt.rt.session_id]


def test_only_expired_sessions_evicted(clock):
    st = store(clock, ttl=100)
    old = start(st)
    cancel(old)
    clock.now += 50
    young = start(st)
    cancel(young)
    clock.now += 60
    assert st.evict() == [old.rt.session_id]
    assert [x.rt.session_id for x in st.all()] == [young.rt.session_id]


async def test_full_of_running_sessions_is_a_permission_error(clock):
    st = store(clock, max_sessions=2)
    a, b = start(st), start(st)
    async with a.lock, b.lock:  # both are running a turn: neither may be evicted
        with pytest.raises(CouncilError) as info:
            st.create()
    assert info.value.code is ErrorCode.PERMISSION
    assert info.value.details == {"limit": 2}
    assert len(st) == 2


def expired(st: SessionStore, session_id: str) -> CouncilError:
    with pytest.raises(CouncilError) as info:
        st.get(session_id)
    assert info.value.code is ErrorCode.VALIDATION and "expired" in info.value.message
    assert info.value.details == {"sessionId": session_id, "reason": "expired"}
    return info.value


async def test_an_idle_session_waiting_on_the_user_makes_room(clock):
    st = store(clock, max_sessions=2)
    waiting, running = start(st), start(st)  # neither finished: one waits on the user, one runs a turn
    clock.now += 5
    async with running.lock:
        newcomer = start(st)
    assert {x.rt.session_id for x in st.all()} == {running.rt.session_id, newcomer.rt.session_id}
    expired(st, waiting.rt.session_id)


async def test_the_least_recently_used_idle_session_goes_and_finished_ones_first(clock):
    st = store(clock, max_sessions=3)
    old_waiting = start(st)
    clock.now += 1
    finished = start(st)
    cancel(finished)
    clock.now += 1
    recent_waiting = start(st)
    clock.now += 1
    start(st)  # full: the finished one goes, though a waiting one is older
    expired(st, finished.rt.session_id)
    clock.now += 1
    recent_waiting.rt.record(r.StatusSet(at=T0, status=SessionStatus.CLARIFYING))  # used again
    start(st)  # then the least recently used of the idle ones
    expired(st, old_waiting.rt.session_id)
    assert st.get(recent_waiting.rt.session_id) is recent_waiting


def test_a_session_evicted_after_its_ttl_is_reported_as_expired(clock):
    st = store(clock, ttl=10)
    rt = start(st)
    cancel(rt)
    clock.now += 11
    expired(st, rt.rt.session_id)
    with pytest.raises(CouncilError) as info:  # one never seen stays unknown
        st.get("never-seen")
    assert info.value.details == {"sessionId": "never-seen", "reason": "unknown_session"}


def test_expired_sessions_make_room(clock):
    st = store(clock, ttl=10, max_sessions=1)
    rt = start(st)
    cancel(rt)
    clock.now += 11
    assert start(st).rt.session_id != rt.rt.session_id
    assert len(st) == 1


def test_discard(clock):
    st = store(clock)
    rt = start(st)
    st.discard(rt.rt.session_id)
    st.discard(rt.rt.session_id)
    assert len(st) == 0


def test_finished_sessions_make_room_first(clock):
    st = store(clock, ttl=100, max_sessions=1)
    rt = start(st)
    cancel(rt)
    clock.now += 1
    assert start(st).rt.session_id != rt.rt.session_id


PROBLEM = "Should we split our monolith into services this quarter?"


async def test_a_session_waiting_on_the_user_never_blocks_a_new_one(make_service):
    h = make_service(max_sessions=1)
    waiting = await h.service.turn(TurnParams(text=PROBLEM))  # clarifying: idle, waiting for an answer
    assert waiting.status is SessionStatus.CLARIFYING
    done = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False)))
    assert done.status is SessionStatus.COMPLETED
    with pytest.raises(CouncilError) as info:
        await h.service.turn(TurnParams(session_id=waiting.session_id, text="skip"))
    assert info.value.code is ErrorCode.VALIDATION and "expired" in info.value.message
    assert info.value.details == {"sessionId": waiting.session_id, "reason": "expired"}
