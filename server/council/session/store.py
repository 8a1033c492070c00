"""All live sessions of one sidecar, isolated from each other, evicted after a TTL once finished.

Nothing is written to disk. Idle unfinished sessions are evicted after a longer idle TTL; the number of live
sessions is capped, finished ones making room first.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from council.errors import CouncilError, ErrorCode, validation_error
from council.session.entities import new_id
from council.session.runtime import SessionObserver, SessionRuntime

IDLE_FACTOR = 6  # an unfinished session idle for ttl × this is abandoned


class SessionStore:
    def __init__(self, observer: SessionObserver, *, ttl: float = 1800.0, max_sessions: int = 64,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.observer = observer
        self.ttl = ttl
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: dict[str, SessionRuntime] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self, session_id: str | None = None) -> SessionRuntime:
        self.evict()
        if session_id is not None and session_id in self._sessions:
            raise validation_error("that session id is already in use", sessionId=session_id)
        if len(self._sessions) >= self.max_sessions:
            self._make_room()
        if len(self._sessions) >= self.max_sessions:
            raise CouncilError(ErrorCode.PERMISSION, f"too many open sessions (at most {self.max_sessions}); "
                               "finish or cancel one first", limit=self.max_sessions)
        rt = SessionRuntime(session_id or new_id(), self.observer, mono=self.clock)
        self._sessions[rt.session_id] = rt
        return rt

    def _make_room(self) -> None:
        """Evict the longest-finished session, ahead of its TTL, to make room for a new one."""
        finished = [rt for rt in self._sessions.values() if rt.finished_at is not None and not rt.lock.locked()]
        if finished:
            oldest = min(finished, key=lambda rt: rt.finished_at or 0.0)
            del self._sessions[oldest.session_id]

    def get(self, session_id: str) -> SessionRuntime:
        self.evict()
        rt = self._sessions.get(session_id)
        if rt is None or not rt.created:
            raise validation_error("unknown session (it may have expired)", sessionId=session_id)
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
            if finished or abandoned or stillborn:
                gone.append(sid)
                del self._sessions[sid]
        return gone

    def all(self) -> list[SessionRuntime]:
        return list(self._sessions.values())
