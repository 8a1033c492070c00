"""One live session: its state, journal, ordered event stream, lock, cancel scope and idempotency memory.

``record`` is the only way state changes: it applies a journal record through the reducer, appends it to the
journal and emits the matching ``council/event`` notifications with the next sequence number.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import anyio

from council.errors import ErrorCode
from council.protocol import events as ev
from council.protocol.methods import TurnResult
from council.session import records as r
from council.session.entities import (
    ConversationSession,
    CycleRef,
    DiscussionStatus,
    MessageTurn,
    MessageType,
    Participant,
    SessionStatus,
    utcnow,
)
from council.session.reducer import apply
from council.session.transitions import TERMINAL

log = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]


class SessionRuntime:
    def __init__(self, session_id: str, sink: EventSink, clock: Callable[[], datetime] = utcnow,
                 mono: Callable[[], float] = time.monotonic) -> None:
        self.mono = mono
        self.session_id = session_id
        self._sink = sink
        self.clock = clock
        self._session: ConversationSession | None = None
        self.journal: list[r.RecordBase] = []
        self.seq = 0
        self.lock = anyio.Lock()
        self.cancel_scope: anyio.CancelScope | None = None
        self.results: dict[str, TurnResult] = {}
        self.finished_at: float | None = None
        self.last_active = mono()
        self.inflight_calls = 0
        self.pick: Callable[[str], Any] | None = None  # role → provider, chosen when the session starts
        self.pending: dict[str, anyio.Event] = {}
        self.failures: dict[str, Exception] = {}

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
        self._session = apply(self._session, rec)
        self.journal.append(rec)
        self.last_active = self.mono()
        if self._session.status in TERMINAL:
            self.finished_at = self.mono()
        else:
            self.finished_at = None
        self._emit_for(rec, previous)

    def turn(self, sender: Participant, kind: MessageType, content: str, *,
             cycle: CycleRef | None = None, metadata: dict[str, Any] | None = None) -> MessageTurn:
        """A MessageTurn with the next sequence number (to be carried by a record)."""
        s = self.session
        last = s.message_turns[-1].sequence_number if s.message_turns else 0
        return MessageTurn(session_id=s.session_id, sender=sender, message_type=kind, content=content,
                           timestamp=self.clock(), sequence_number=last + 1, related_cycle_or_round=cycle,
                           metadata=metadata or {})

    # --- events ------------------------------------------------------------------------------------------
    def emit(self, event_cls: type[ev.EventBase], **fields: Any) -> None:
        self.seq += 1
        event = event_cls(session_id=self.session_id, seq=self.seq, at=self.clock(), **fields)
        try:
            self._sink(event.to_wire())
        except Exception:  # a broken client pipe must not break the session
            log.exception("could not send event %s", event_cls.__name__)

    def progress(self, message: str) -> None:
        self.emit(ev.Progress, message=message)

    def error(self, message: str, *, code: ErrorCode = ErrorCode.INTERNAL, persona: str | None = None,
              **details: Any) -> None:
        self.emit(ev.ErrorEvent, code=code, message=message, persona=persona, details=details)

    def _emit_for(self, rec: r.RecordBase, previous: SessionStatus | None) -> None:
        s = self.session
        if isinstance(rec, r.StatusSet) and previous is not None:
            self.emit(ev.StatusChanged, previous=previous, status=rec.status, reason=rec.reason)
        elif isinstance(rec, r.PersonasSelected):
            self.emit(ev.PersonasSelected, selection=rec.selection)
        elif isinstance(rec, r.QuestionAsked):
            q = s.question(rec.question_id)
            self.emit(ev.QuestionAsked, question=q, remaining_in_round=len(s.planned_questions))
        elif isinstance(rec, r.QuestionAnswered):
            self.emit(ev.QuestionResolved, question=s.question(rec.answer.question_id))
        elif isinstance(rec, r.QuestionSkipped):
            self.emit(ev.QuestionResolved, question=s.question(rec.answer.question_id))
            self.emit(ev.AssumptionRecorded, assumption=rec.assumption)
        elif isinstance(rec, r.PersonaSpoke):
            self.emit(ev.PersonaCompleted, persona=rec.response.persona, cycle=rec.response.cycle,
                      response=rec.response)
        elif isinstance(rec, r.CycleConcluded):
            self.emit(ev.CycleCompleted, cycle=rec.cycle, resolution_summary=rec.resolution_summary,
                      convergence=rec.convergence)
            if rec.status is DiscussionStatus.LIMIT_REACHED:
                st = s.settings
                self.emit(ev.DebateLimitReached, cycles=rec.cycle, limit=s.cycle_limit,
                          can_extend=can_extend(s), extended_limit=max(st.extended_max_cycles, st.max_cycles))
        elif isinstance(rec, r.OptionsSet):
            self.emit(ev.OptionsProposed, options=rec.options)
        elif isinstance(rec, r.TallySet):
            self.emit(ev.VotesTallied, tally=rec.tally)
        elif isinstance(rec, r.SynthesisSet):
            self.emit(ev.FinalAnswer, markdown=rec.final_answer, synthesis=rec.synthesis)


def can_extend(s: ConversationSession) -> bool:
    """Whether ``extend debate`` would allow more cycles than the session has run."""
    if s.status is SessionStatus.CANCELLED:
        return False
    ceiling = max(s.settings.extended_max_cycles, s.settings.max_cycles)
    return not s.extended_debate_requested and ceiling > s.debate_cycles
