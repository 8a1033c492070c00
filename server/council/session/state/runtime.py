"""One live session's state, and the context of one turn that runs on it.

:class:`SessionRuntime` is the session: ``record`` is the only way its state changes (the reducer applies a journal
record, the journal keeps it, the observer is told). :class:`Turn` is what the engine's steps need while one turn
runs (or one review, which has no session). Its reports go to the observer (``council.narrator``) as data.
"""

from __future__ import annotations

import copy
import functools
import logging
import time
import types
import typing
from collections.abc import Callable
from datetime import date, datetime
from enum import Enum
from typing import Any, Protocol, TypeVar

import anyio
from pydantic import BaseModel

from council.errors import ErrorCode
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.reducer import apply, replay

log = logging.getLogger(__name__)
T = TypeVar("T")
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


def with_shared_fields_sets(node: T) -> T:
    """``node`` (a record, a list, a model in one) with every model in it holding the one shared copy of its
    ``model_fields_set``; every record and restored journal goes through it before it is applied. Why: pydantic
    keeps a set per instance (twenty names take over 2 KB) and a session keeps hundreds of models; an applied record
    and the session objects it shares never change again, and ``model_copy`` copies the set before touching it. A
    model that does not share it yet is rebuilt as a shallow copy holding the shared set (its values are validated
    already)."""
    if isinstance(node, BaseModel):
        values = _shared_fields(node)
        own = node.model_fields_set
        shared = _FIELDS_SETS.setdefault(frozenset(own), own)
        if shared is own and values is None:
            return node
        return _shallow_copy(node, values, shared)
    if isinstance(node, list):
        items = _shared_within(node)
        return node if items is None else items  # type: ignore[return-value]
    return node


def _shallow_copy(node: BaseModel, values: dict[str, Any] | None, shared: set[str]) -> BaseModel:
    """A shallow copy of ``node`` holding ``values`` (None: a copy of its own) and the ``shared`` fields set: what
    pydantic's ``__copy__`` gives (no per-field work; ``model_construct``'s costs 10× more), without its copies of
    the fields set and values that would be replaced at once. A model with extra or private values (none in the
    journal: extra fields are refused, and records hold no private attributes) takes pydantic's own copy."""
    if node.__pydantic_extra__ is not None or getattr(node, "__pydantic_private__", None) is not None:
        new = copy.copy(node)
        if values is not None:
            _set(new, "__dict__", values)
    else:
        new = _new(type(node))
        _set(new, "__dict__", dict(node.__dict__) if values is None else values)
        _set(new, "__pydantic_extra__", None)
        _set(new, "__pydantic_private__", None)
    _set(new, "__pydantic_fields_set__", shared)
    return new


_new = object.__new__  # a pydantic model defines no __new__ of its own (pydantic's __copy__ starts the same way)
_set = object.__setattr__


def _shared_fields(node: BaseModel) -> dict[str, Any] | None:
    """A copy of a model's values with :func:`with_shared_fields_sets` applied to those of its fields that can hold
    a model (:func:`_walked`), or None when none of them changed."""
    values = node.__dict__
    changed: dict[str, Any] | None = None
    for key in _walked(type(node)):
        value = values.get(key)
        if isinstance(value, (BaseModel, list)):
            new = with_shared_fields_sets(value)
            if new is not value:
                if changed is None:
                    changed = dict(values)
                changed[key] = new
    return changed


def _shared_within(values: list[Any]) -> list[Any] | None:
    """A copy of a list with :func:`with_shared_fields_sets` applied to the models and lists in it, or None when
    none of them changed. Other values (text, numbers, dicts) are kept as they are, without a call each."""
    changed: list[Any] | None = None
    for key, value in enumerate(values):
        if isinstance(value, (BaseModel, list)):
            new = with_shared_fields_sets(value)
            if new is not value:
                if changed is None:
                    changed = list(values)
                changed[key] = new
    return changed


@functools.cache
def _walked(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``cls`` whose values the sharing looks into: those whose type can hold a model (a model, a list
    of models, a union with one, or a type it cannot tell). Text, numbers, enums, dicts and lists of text are never
    looked at: a record holds thousands of them (a reply's lists), and none holds a model."""
    return tuple(name for name, spec in cls.model_fields.items() if _can_hold_model(spec.annotation))


def _can_hold_model(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    if origin is list or origin is typing.Annotated:
        return _can_hold_model(typing.get_args(tp)[0])
    if origin is typing.Union or origin is types.UnionType:
        return any(_can_hold_model(arg) for arg in typing.get_args(tp))
    if origin is typing.Literal or origin in (dict, tuple, set, frozenset):
        return False  # the walk does not go into them (only models and lists)
    if origin is None and isinstance(tp, type):
        return tp is list or issubclass(tp, BaseModel) or not issubclass(tp, _PLAIN)
    return True  # a type it cannot tell (Any, a type variable): looked into, as before


_PLAIN = (str, int, float, bool, bytes, datetime, date, Enum, dict, tuple, set, frozenset, type(None))


class SessionObserver(Protocol):
    """Receives everything a session reports, in order (``rt`` is None for a review: it has no session)."""

    def recorded(self, rt: SessionRuntime, rec: r.RecordBase, previous: e.SessionStatus | None) -> None: ...

    def note(self, rt: SessionRuntime | None, kind: str, data: dict[str, Any]) -> None: ...

    def problem(self, rt: SessionRuntime | None, kind: str, data: dict[str, Any], *, code: ErrorCode,
                persona: str | None, retryable: bool) -> None: ...

    def persona_started(self, rt: SessionRuntime | None, persona: str, cycle: int, provider: str,
                        model: str) -> None: ...

    def persona_text(self, rt: SessionRuntime | None, persona: str, cycle: int, chunk: str) -> None: ...

    def follow_up_text(self, rt: SessionRuntime | None, follow_up_id: str, chunk: str) -> None: ...

    def answer_text(self, rt: SessionRuntime | None, stream_id: str, chunk: str) -> None: ...


class SessionRuntime:
    """The session's state. ``record`` and ``load`` write it; ``seq`` is the narrator's (the last event number
    sent); ``earlier`` is set once by the engine as the session starts (a lost session's replies it reuses)."""

    def __init__(self, session_id: str, observer: SessionObserver, clock: Callable[[], datetime] = e.utcnow,
                 mono: Callable[[], float] = time.monotonic, language: str | None = None) -> None:
        self.session_id, self.observer, self.clock, self.mono = session_id, observer, clock, mono
        self.language = language  # what the session will write in, before it exists (its plan's)
        self._session: e.ConversationSession | None = None
        self.journal: list[r.RecordBase] = []
        self.seq = 0
        self.last_active = mono()  # when it last changed (the store evicts by it)
        self.earlier: Any = None  # council.session.steps.answers.Earlier
        self.one_shot = False  # no retry will come (a consult): a later cycle whose every call failed is dropped

    @property
    def session(self) -> e.ConversationSession:
        if self._session is None:
            raise RuntimeError("session not created yet")
        return self._session

    @property
    def created(self) -> bool:
        return self._session is not None

    @property
    def finished_at(self) -> float | None:
        """When it completed or was cancelled (None: it has not)."""
        return self.last_active if self._session is not None and self._session.status in e.TERMINAL else None

    # --- state changes ---------------------------------------------------------------------------------
    def record(self, rec: r.RecordBase) -> None:
        previous = self._session.status if self._session is not None else None
        rec = with_shared_fields_sets(rec)
        self._session = apply(self._session, rec)
        self.journal.append(rec)
        self.last_active = self.mono()
        _tell(self.observer.recorded, self, rec, previous)

    def load(self, journal: list[r.RecordBase], last_seq: int) -> None:
        """Become the session a journal describes (a restore): replayed silently, events continue after
        ``last_seq``."""
        self.journal = [with_shared_fields_sets(rec) for rec in journal]
        self._session = replay(self.journal)
        self.seq = last_seq
        self.last_active = self.mono()

    def turn(self, sender: e.Participant, kind: e.MessageType, content: str, *,
             cycle: e.CycleRef | None = None, metadata: dict[str, Any] | None = None) -> e.MessageTurn:
        """A MessageTurn with the next sequence number (to be carried by a record)."""
        s = self.session
        last = s.message_turns[-1].sequence_number if s.message_turns else 0
        return e.MessageTurn(session_id=s.session_id, sender=sender, message_type=kind, content=content,
                           timestamp=self.clock(), sequence_number=last + 1, related_cycle_or_round=cycle,
                           metadata=metadata or {})

    # --- stopping and resuming (the reducer's CycleDropped, SessionStopped) ------------------------------------
    def drop_open_cycle(self, reason: str) -> int | None:
        cycle = self.session.open_cycle
        if cycle is not None:
            self.record(r.CycleDropped(at=self.clock(), cycle=cycle, reason=reason))
        return cycle

    def pause(self, reason: str) -> bool:
        """Stop a session that was interrupted mid-turn; False when there is nothing to pause (not created yet,
        completed or cancelled)."""
        if not self.created or self.session.status in e.TERMINAL:
            return False
        if self.session.stopped and self.session.open_cycle is None:
            return True  # stopped already (a stop and the client's $/cancelRequest for the same turn)
        self.drop_open_cycle("stopped")
        self.record(r.SessionStopped(at=self.clock(), reason=reason))
        return True

    def resume(self) -> None:
        if self.session.stopped:
            self.record(r.SessionResumed(at=self.clock()))


class Turn:
    """One turn's context, made by the runner (``council.sessions``) as the turn starts, or by a review: the session
    it runs on (None for a review), its cancel scope, the model calls started and not journaled yet (the budget
    counts them), the models it found it cannot use (``session.unreachable``) and why every advisor failed, if they
    did (``stalled_by``, persona → ModelFailure), or, in a one-shot session, why a later cycle was dropped and the
    council answered from the cycles before it (``dropped``: the cycle and persona → ModelFailure)."""

    def __init__(self, session_id: str, observer: SessionObserver, clock: Callable[[], datetime] = e.utcnow,
                 live: SessionRuntime | None = None, scope: anyio.CancelScope | None = None) -> None:
        self.session_id, self.observer, self.clock, self.live, self.scope = session_id, observer, clock, live, scope
        self.stop_requested = False  # the scope was cancelled by a stop, not a cancel
        self.follow_up = False  # a follow-up on a completed session (council/cancel stops it; it stays completed)
        self.inflight_calls = self.pending_calls = self.pending_first = 0
        self.gone: dict[str, Any] = {}
        self.stalled_by: dict[str, Any] = {}
        self.dropped: tuple[int, dict[str, Any]] | None = None

    @property
    def session(self) -> e.ConversationSession:
        assert self.live is not None, "a review has no session"
        return self.live.session

    @property
    def created(self) -> bool:
        return self.live is not None and self.live.created

    def record(self, rec: r.RecordBase) -> None:
        self.live.record(rec)  # type: ignore[union-attr]  (a review records nothing)

    def turn(self, sender: e.Participant, kind: e.MessageType, content: str, **kw: Any) -> e.MessageTurn:
        return self.live.turn(sender, kind, content, **kw)  # type: ignore[union-attr]

    # --- reports (data; the observer words them) ----------------------------------------------------------
    def note(self, kind: str, **data: Any) -> None:
        _tell(self.observer.note, self.live, kind, data)

    def problem(self, kind: str, *, code: ErrorCode = ErrorCode.INTERNAL, persona: str | None = None,
                retryable: bool = False, **data: Any) -> None:
        _tell(self.observer.problem, self.live, kind, data, code=code, persona=persona, retryable=retryable)

    def persona_started(self, persona: str, cycle: int, provider: str, model: str) -> None:
        _tell(self.observer.persona_started, self.live, persona, cycle, provider, model)

    def persona_text(self, persona: str, cycle: int, chunk: str) -> None:
        _tell(self.observer.persona_text, self.live, persona, cycle, chunk)

    def follow_up_text(self, follow_up_id: str, chunk: str) -> None:
        """The moderator's raw reply to a follow-up question, as it streams."""
        _tell(self.observer.follow_up_text, self.live, follow_up_id, chunk)

    def answer_text(self, stream_id: str, chunk: str) -> None:
        """The chair's raw reply (the council's answer), as it streams; ``stream_id`` names one synthesis call."""
        _tell(self.observer.answer_text, self.live, stream_id, chunk)


def _tell(fn: Callable[..., None], *args: Any, **kwargs: Any) -> None:
    try:
        fn(*args, **kwargs)
    except Exception:  # a broken client pipe or a rendering bug must not break the session
        log.exception("the observer failed on %s", getattr(fn, "__name__", fn))


def can_extend(s: e.ConversationSession) -> bool:
    """Whether ``extend debate`` would allow more cycles: only after a debate that stopped at its cap."""
    if s.status is e.SessionStatus.CANCELLED or s.extended_debate_requested or not s.discussions:
        return False
    return s.discussions[-1].status.value == "limit_reached" and s.settings.cycle_cap(True) > s.debate_cycles
