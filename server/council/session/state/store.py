"""All live sessions of one sidecar, isolated from each other, and the idempotency memory of their requests
(``KeyedOnce``). Nothing is written to disk. A finished session is evicted after the TTL, an unfinished one after a
longer idle TTL; a full store evicts the least recently used idle session (no turn running; finished ones first) and
refuses a new one only when every session runs a turn. Evicted ids are remembered, boundedly, so a request for one
is refused as expired (docs/protocol.md, errors).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio

from council.errors import CouncilError, ErrorCode, validation_error
from council.session.state.entities import new_id
from council.session.state.runtime import SessionObserver, SessionRuntime, Turn
from council.words import t

IDLE_FACTOR = 6  # an unfinished session idle for ttl × this is abandoned
REMEMBERED = 4096  # evicted session ids remembered to answer "expired" rather than "unknown"
T = TypeVar("T")


class _Box:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: Any = None
        self.error: BaseException | None = None


class KeyedOnce:
    """Runs a request once per idempotency key: a repeat (even a concurrent one) gets the first call's result.

    Only successes are remembered. A refusal or a failure is handed to the calls waiting on the same key at that
    moment and then forgotten, so the same button works once the reason for the refusal is gone. The memory holds at
    most ``limit`` results; the oldest go first."""

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self._results: OrderedDict[str, Any] = OrderedDict()
        self._running: dict[str, _Box] = {}

    def __len__(self) -> int:
        return len(self._results) + len(self._running)

    async def run(self, key: str, fn: Callable[[], Awaitable[T]], repeat: Callable[[T], T] = lambda x: x) -> T:
        if key in self._results:
            self._results.move_to_end(key)
            return repeat(self._results[key])
        box = self._running.get(key)
        if box is not None:
            await box.done.wait()
            if box.error is not None:
                raise box.error
            return repeat(box.result)
        box = self._running[key] = _Box()
        try:
            box.result = await fn()
        except BaseException as exc:
            box.error = exc if isinstance(exc, Exception) else RuntimeError("the first request was cancelled")
            raise
        else:
            self._results[key] = box.result
            while len(self._results) > self.limit:
                self._results.popitem(last=False)
            return box.result
        finally:
            del self._running[key]
            box.done.set()


@dataclass(eq=False)
class Live:
    """A live session: its state, and the runner's for it — one turn at a time (``lock``), the turn running or last
    run, the idempotency memory of its requests (evicted with it) and its role → provider function."""

    rt: SessionRuntime
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    turn: Turn | None = None
    once: KeyedOnce = field(default_factory=KeyedOnce)
    pick: Callable | None = None

    @property
    def running(self) -> Turn | None:
        return self.turn if self.lock.locked() else None


class SessionStore:
    def __init__(self, observer: SessionObserver, *, ttl: float = 1800.0, max_sessions: int = 128,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.observer = observer
        self.ttl = ttl
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: dict[str, Live] = {}
        self._expired: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self, session_id: str | None = None, language: str | None = None) -> Live:
        self.evict()
        if session_id is not None and session_id in self._sessions:
            raise validation_error("that session id is already in use", sessionId=session_id)
        if len(self._sessions) >= self.max_sessions:
            self._make_room()
        if len(self._sessions) >= self.max_sessions:
            raise CouncilError(ErrorCode.PERMISSION, t("error.too_many_sessions", limit=self.max_sessions),
                               limit=self.max_sessions)
        live = Live(SessionRuntime(session_id or new_id(), self.observer, mono=self.clock, language=language))
        self._sessions[live.rt.session_id] = live
        self._expired.pop(live.rt.session_id, None)
        return live

    def _make_room(self) -> None:
        idle = [x.rt for x in self._sessions.values() if x.rt.created and not x.lock.locked()]
        if idle:
            victim = min(idle, key=lambda rt: (rt.finished_at is None, rt.last_active))
            self._drop(victim.session_id)

    def _drop(self, session_id: str) -> None:
        del self._sessions[session_id]
        self._expired[session_id] = None
        while len(self._expired) > REMEMBERED:
            self._expired.popitem(last=False)

    def get(self, session_id: str) -> Live:
        self.evict()
        live = self._sessions.get(session_id)
        if live is None and session_id in self._expired:
            raise validation_error(t("error.expired"), sessionId=session_id, reason="expired")
        if live is None or not live.rt.created:
            raise validation_error(t("error.unknown_session"), sessionId=session_id, reason="unknown_session")
        return live

    def discard(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def evict(self) -> list[str]:
        now = self.clock()
        gone = []
        for sid, live in list(self._sessions.items()):
            rt = live.rt
            if live.lock.locked():
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

    def all(self) -> list[Live]:
        return list(self._sessions.values())
