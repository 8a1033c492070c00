"""All live sessions of one sidecar, isolated from each other, evicted after a TTL or to make room.

Nothing is written to disk. A finished session is evicted after the TTL, an unfinished one after a longer idle
TTL. When the store is full, a new session takes the place of the least recently used *idle* one (no turn
running: finished, or waiting on the user — finished ones go first); only when every session is running a turn
is a new one refused. A request for an evicted session gets a validation error that says it expired
(``details.reason == "expired"``); the ids of evicted sessions are remembered for that, boundedly.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from council.errors import CouncilError, ErrorCode, validation_error
from council.session.state.entities import new_id
from council.session.state.runtime import SessionObserver, SessionRuntime
from council.words import t

IDLE_FACTOR = 6  # an unfinished session idle for ttl × this is abandoned
REMEMBERED = 4096  # evicted session ids remembered to answer "expired" rather than "unknown"


class SessionStore:
    def __init__(self, observer: SessionObserver, *, ttl: float = 1800.0, max_sessions: int = 128,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.observer = observer
        self.ttl = ttl
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: dict[str, SessionRuntime] = {}
        self._expired: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self, session_id: str | None = None) -> SessionRuntime:
        self.evict()
        if session_id is not None and session_id in self._sessions:
            raise validation_error("that session id is already in use", sessionId=session_id)
        if len(self._sessions) >= self.max_sessions:
            self._make_room()
        if len(self._sessions) >= self.max_sessions:
            raise CouncilError(ErrorCode.PERMISSION, t("error.too_many_sessions", limit=self.max_sessions),
                               limit=self.max_sessions)
        rt = SessionRuntime(session_id or new_id(), self.observer, mono=self.clock)
        self._sessions[rt.session_id] = rt
        self._expired.pop(rt.session_id, None)
        return rt

    def _make_room(self) -> None:
        """Evict the least recently used idle session, finished ones first; never one running a turn."""
        idle = [rt for rt in self._sessions.values() if rt.created and not rt.lock.locked()]
        if idle:
            victim = min(idle, key=lambda rt: (rt.finished_at is None, rt.last_active))
            self._drop(victim.session_id)

    def _drop(self, session_id: str) -> None:
        del self._sessions[session_id]
        self._expired[session_id] = None
        while len(self._expired) > REMEMBERED:
            self._expired.popitem(last=False)

    def get(self, session_id: str) -> SessionRuntime:
        self.evict()
        rt = self._sessions.get(session_id)
        if rt is None and session_id in self._expired:
            raise validation_error(t("error.expired"), sessionId=session_id, reason="expired")
        if rt is None or not rt.created:
            raise validation_error(t("error.unknown_session"), sessionId=session_id, reason="unknown_session")
        return rt

    def discard(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def evict(self) -> list[str]:
        now = self.clock()
        gone = []
        for sid, rt in list(self._sessions.items()):
            if rt.lock.locked():
                continue
            finished = rt.finished_at is not None and now - rt.finished_at > self.ttl
            abandoned = now - rt.last_active > self.ttl * IDLE_FACTOR
            stillborn = not rt.created and now - rt.last_active > 60
            if finished or abandoned:
                gone.append(sid)
                self._drop(sid)
            elif stillborn:
                gone.append(sid)
                del self._sessions[sid]
        return gone

    def all(self) -> list[SessionRuntime]:
        return list(self._sessions.values())
