"""One live session: its state, journal, observer, lock, cancel scope and idempotency memory.

``record`` is the only way state changes: it applies a journal record through the reducer, appends it to the
journal and tells the observer. Everything else the session reports — progress notes, problems, the raw text of a
persona (or of the moderator's answer to a follow-up, or of the chair's answer) as it streams — goes to the
observer as data; the observer (``council.narrator``) decides what people read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

import anyio

from council.errors import ErrorCode
from council.idempotency import KeyedOnce
from council.session.state import records as r
from council.session.state.entities import (
    ConversationSession,
    CycleRef,
    MessageTurn,
    MessageType,
    Participant,
    SessionStatus,
    utcnow,
)
from council.session.state.reducer import apply, replay
from council.session.state.sharing import with_shared_fields_sets
from council.session.state.transitions import TERMINAL

log = logging.getLogger(__name__)


class SessionObserver(Protocol):
    """Receives everything a session reports, in order."""

    def recorded(self, rt: SessionRuntime, rec: r.RecordBase, previous: SessionStatus | None) -> None: ...

    def note(self, rt: SessionRuntime, kind: str, data: dict[str, Any]) -> None: ...

    def problem(self, rt: SessionRuntime, kind: str, data: dict[str, Any], *, code: ErrorCode,
                persona: str | None, retryable: bool) -> None: ...

    def persona_started(self, rt: SessionRuntime, persona: str, cycle: int, provider: str, model: str) -> None: ...

    def persona_text(self, rt: SessionRuntime, persona: str, cycle: int, chunk: str) -> None: ...

    def follow_up_text(self, rt: SessionRuntime, follow_up_id: str, chunk: str) -> None: ...

    def answer_text(self, rt: SessionRuntime, stream_id: str, chunk: str) -> None: ...


class SessionRuntime:
    def __init__(self, session_id: str, observer: SessionObserver, clock: Callable[[], datetime] = utcnow,
                 mono: Callable[[], float] = time.monotonic) -> None:
        self.mono = mono
        self.session_id = session_id
        self.observer = observer
        self.clock = clock
        self._session: ConversationSession | None = None
        self.journal: list[r.RecordBase] = []
        self.seq = 0  # the last event sequence number sent for this session (the narrator numbers events)
        self.lock = anyio.Lock()
        self.cancel_scope: anyio.CancelScope | None = None
        self.stop_requested = False  # the running turn's scope was cancelled by a stop, not a cancel
        self.finished_at: float | None = None
        self.last_active = mono()
        self.inflight_calls = 0
        self.stalled_by: dict[str, Any] = {}  # persona → ModelFailure of the last cycle every advisor failed
        self.gone: dict[str, Any] = {}  # models this turn found it cannot use → ModelFailure (session.unreachable)
        self.pending_calls = 0  # started and not journaled yet (the budget counts them): all, and first calls
        self.pending_first = 0
        self.pick: Callable[[str], Any] | None = None  # role → provider, chosen when the session starts
        self.once = KeyedOnce()  # idempotency memory of this session's requests, evicted with it
        self.language: str | None = None  # what the session will write in, before it exists (its plan's)
        self.earlier: Any = None  # council.session.earlier.Earlier: a lost session's replies this one reuses

    @property
    def session(self) -> ConversationSession:
        if self._session is None:
            raise RuntimeError("session not created yet")
        return self._session

    @property
    def created(self) -> bool:
        return self._session is not None

    # --- state changes ---------------------------------------------------------------------------------
    def record(self, rec: r.RecordBase) -> None:
        previous = self._session.status if self._session is not None else None
        rec = with_shared_fields_sets(rec)
        self._session = apply(self._session, rec)
        self.journal.append(rec)
        self.last_active = self.mono()
        self.finished_at = self.mono() if self._session.status in TERMINAL else None
        self._tell(self.observer.recorded, self, rec, previous)

    def load(self, journal: list[r.RecordBase], last_seq: int) -> None:
        """Become the session a journal describes (a restore): replayed silently, events continue after
        ``last_seq``."""
        self.journal = [with_shared_fields_sets(rec) for rec in journal]
        self._session = replay(self.journal)
        self.seq = last_seq
        self.last_active = self.mono()
        self.finished_at = self.mono() if self._session.status in TERMINAL else None

    def turn(self, sender: Participant, kind: MessageType, content: str, *,
             cycle: CycleRef | None = None, metadata: dict[str, Any] | None = None) -> MessageTurn:
        """A MessageTurn with the next sequence number (to be carried by a record)."""
        s = self.session
        last = s.message_turns[-1].sequence_number if s.message_turns else 0
        return MessageTurn(session_id=s.session_id, sender=sender, message_type=kind, content=content,
                           timestamp=self.clock(), sequence_number=last + 1, related_cycle_or_round=cycle,
                           metadata=metadata or {})

    # --- reports (data; the observer words them) ----------------------------------------------------------
    def note(self, kind: str, **data: Any) -> None:
        self._tell(self.observer.note, self, kind, data)

    def problem(self, kind: str, *, code: ErrorCode = ErrorCode.INTERNAL, persona: str | None = None,
                retryable: bool = False, **data: Any) -> None:
        self._tell(self.observer.problem, self, kind, data, code=code, persona=persona, retryable=retryable)

    def persona_started(self, persona: str, cycle: int, provider: str, model: str) -> None:
        self._tell(self.observer.persona_started, self, persona, cycle, provider, model)

    def persona_text(self, persona: str, cycle: int, chunk: str) -> None:
        self._tell(self.observer.persona_text, self, persona, cycle, chunk)

    def follow_up_text(self, follow_up_id: str, chunk: str) -> None:
        """The moderator's raw reply to a follow-up question, as it streams."""
        self._tell(self.observer.follow_up_text, self, follow_up_id, chunk)

    def answer_text(self, stream_id: str, chunk: str) -> None:
        """The chair's raw reply (the council's answer), as it streams; ``stream_id`` names one synthesis call."""
        self._tell(self.observer.answer_text, self, stream_id, chunk)

    def _tell(self, fn: Callable[..., None], *args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except Exception:  # a broken client pipe or a rendering bug must not break the session
            log.exception("the observer failed on %s", getattr(fn, "__name__", fn))


def can_extend(s: ConversationSession) -> bool:
    """Whether ``extend debate`` would allow more cycles: only after a debate that stopped at its cap."""
    if s.status is SessionStatus.CANCELLED or s.extended_debate_requested or not s.discussions:
        return False
    ceiling = max(s.settings.extended_max_cycles, s.settings.max_cycles)
    return s.discussions[-1].status.value == "limit_reached" and ceiling > s.debate_cycles
