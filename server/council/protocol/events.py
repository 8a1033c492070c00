"""Server → client notifications: ``council/event``, one ordered stream per session.

Every event carries ``sessionId``, a strictly increasing ``seq`` (per session, starting at 1), ``at`` and a
``type`` that selects its payload. Clients render events in ``seq`` order and ignore types they do not know.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from council.protocol.errors import ErrorCode
from council.protocol.wire import WireModel
from council.session.convergence import Convergence
from council.session.entities import (
    Assumption,
    ClarificationQuestion,
    PersonaSelection,
    SessionStatus,
)
from council.session.outputs import CouncilSynthesis, PersonaResponse, VoteOption, VoteTally

EVENT_METHOD = "council/event"


class EventBase(WireModel):
    session_id: str
    seq: int = Field(ge=1)
    at: datetime


class StatusChanged(EventBase):
    type: Literal["status.changed"] = "status.changed"
    previous: SessionStatus
    status: SessionStatus
    reason: str = ""


class Progress(EventBase):
    type: Literal["progress"] = "progress"
    message: str


class PersonasSelected(EventBase):
    type: Literal["personas.selected"] = "personas.selected"
    selection: PersonaSelection


class QuestionAsked(EventBase):
    type: Literal["question.asked"] = "question.asked"
    question: ClarificationQuestion
    remaining_in_round: int = 0
    round_cap: int = 3


class QuestionResolved(EventBase):
    type: Literal["question.resolved"] = "question.resolved"
    question: ClarificationQuestion


class AssumptionRecorded(EventBase):
    type: Literal["assumption.recorded"] = "assumption.recorded"
    assumption: Assumption


class PersonaStarted(EventBase):
    type: Literal["persona.started"] = "persona.started"
    persona: str
    cycle: int
    phase: Literal["debate", "vote"] = "debate"
    provider: str = ""
    model: str = ""


class PersonaDelta(EventBase):
    type: Literal["persona.delta"] = "persona.delta"
    persona: str
    cycle: int
    text: str


class PersonaCompleted(EventBase):
    type: Literal["persona.completed"] = "persona.completed"
    persona: str
    cycle: int
    response: PersonaResponse


class CycleCompleted(EventBase):
    type: Literal["cycle.completed"] = "cycle.completed"
    cycle: int
    resolution_summary: str
    convergence: Convergence | None = None


class DebateLimitReached(EventBase):
    type: Literal["debate.limitReached"] = "debate.limitReached"
    cycles: int
    limit: int
    can_extend: bool
    extended_limit: int


class OptionsProposed(EventBase):
    type: Literal["options.proposed"] = "options.proposed"
    options: list[VoteOption]


class VotesTallied(EventBase):
    type: Literal["votes.tallied"] = "votes.tallied"
    tally: VoteTally


class FinalAnswer(EventBase):
    type: Literal["final.answer"] = "final.answer"
    markdown: str
    synthesis: CouncilSynthesis


class ErrorEvent(EventBase):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    persona: str | None = None
    details: dict = {}


Event = Annotated[
    (
        StatusChanged
        | Progress
        | PersonasSelected
        | QuestionAsked
        | QuestionResolved
        | AssumptionRecorded
        | PersonaStarted
        | PersonaDelta
        | PersonaCompleted
        | CycleCompleted
        | DebateLimitReached
        | OptionsProposed
        | VotesTallied
        | FinalAnswer
        | ErrorEvent
    ),
    Field(discriminator="type"),
]

EVENT_TYPES: tuple[type[EventBase], ...] = Event.__origin__.__args__  # type: ignore[attr-defined]
event_adapter: TypeAdapter[Event] = TypeAdapter(Event)
