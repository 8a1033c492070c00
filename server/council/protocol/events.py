"""Server → client notifications: ``council/event``, one ordered stream per session.

Every event carries ``sessionId``, ``seq`` (per session, from 1, strictly increasing), ``at``, a ``type`` selecting its
payload, and ``markdown`` written by the sidecar: a client appends it in ``seq`` order (also for types it does not know)
and adds only layout of its own: buttons for ``question.asked`` choices (its markdown does not list them: the client
shows each once, as buttons or a numbered list) with Skip and Skip all, a way to the transcript under ``final.answer``
(the chat shows each persona as one compact line; the full positions are in the transcript), Extend on
``debate.limitReached``, Retry on a retryable ``error``, "my answer" / "a new question" on ``question.confirmNew``,
Resume and Cancel on ``session.stopped``, ``progress.message`` as a transient line, ``evidence.gathered``'s
``references`` as references to the files (VS Code: ``stream.reference``). The data fields are for those layout
decisions and for programs; clients never write prose from them.
"""

from __future__ import annotations

from datetime import datetime
from functools import reduce
from operator import or_
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from council.camel import CamelModel
from council.errors import ErrorCode
from council.protocol.language import ChatLabels
from council.session.state import entities as e
from council.session.state.budget import CallPlan
from council.session.state.convergence import Convergence
from council.session.state.grounds import EvidenceUse, Precedent
from council.session.state.outputs import CouncilSynthesis, PersonaResponse, Vote, VoteOption, VoteTally
from council.session.state.seating import FallbackReason, ModelChoice, Seating

EarlierReason = Literal["unknown_session", "expired"]  # why a session the user had is gone


class EventBase(CamelModel):
    session_id: str
    seq: int = Field(ge=1)
    at: datetime
    markdown: str = Field("", description="What a person reads for this event: markdown to append in seq order "
                                          "(empty: nothing to show). Clients print it as is.")


class StatusChanged(EventBase):
    type: Literal["status.changed"] = "status.changed"
    previous: e.SessionStatus
    status: e.SessionStatus
    reason: str = ""


class Progress(EventBase):
    """A transient status line (clients show it as progress, not in the transcript; ``markdown`` is empty)."""

    type: Literal["progress"] = "progress"
    message: str


class SessionReplaced(EventBase):
    """This session starts in place of one the sidecar no longer has (the turn carried `earlier`): the first
    event of the session, whose `markdown` says so in one line, before anything else it writes."""

    type: Literal["session.replaced"] = "session.replaced"
    reason: EarlierReason


class PersonasSelected(EventBase):
    type: Literal["personas.selected"] = "personas.selected"
    selection: e.PersonaSelection
    labels: ChatLabels | None = Field(None, description="The buttons' words in the session's language (the first "
                                                        "event of a session: for the buttons shown before its result).")


class QuestionAsked(EventBase):
    type: Literal["question.asked"] = "question.asked"
    question: e.ClarificationQuestion
    remaining_in_round: int = 0
    round_cap: int = 3
    revisit: bool = Field(False, description="A skipped or deferred question asked again after the answer "
                                             "(turn command `revisit`): its answer replaces the assumption.")


class QuestionsDropped(EventBase):
    """The moderator weighed questions it will not ask: no likely answer to them would change the recommendation
    (each question's `stakes` says what its answers favour), or (`reason` `clear`, no questions) it found nothing
    worth asking. With `asked` 0 the council goes straight to the debate; `markdown` says why in one line."""

    type: Literal["questions.dropped"] = "questions.dropped"
    questions: list[e.ClarificationQuestion] = []
    reason: Literal["clear", "not_decisive"]
    asked: int = Field(0, description="Questions of the same round that will be asked.")


class QuestionResolved(EventBase):
    type: Literal["question.resolved"] = "question.resolved"
    question: e.ClarificationQuestion
    reused: bool = Field(False, description="Answered or skipped with the reply the user gave a session a reload "
                                            "lost (the turn's `earlier`): it was not asked (no `question.asked`), "
                                            "and `markdown` is the one line saying what was reused.")


class QuestionConfirmNew(EventBase):
    """Text typed while a question is open reads like a new problem: nothing was recorded. The client offers to
    send ``text`` again as the answer (``command: "answer"``) or as a new problem (``command: "new"``)."""

    type: Literal["question.confirmNew"] = "question.confirmNew"
    question_id: str
    text: str


class AssumptionRecorded(EventBase):
    type: Literal["assumption.recorded"] = "assumption.recorded"
    assumption: e.Assumption


class CycleStarted(EventBase):
    type: Literal["cycle.started"] = "cycle.started"
    cycle: int
    limit: int = Field(description="The session's cycle cap when the cycle started.")


class PersonaStarted(EventBase):
    type: Literal["persona.started"] = "persona.started"
    persona: str
    cycle: int
    provider: str = ""
    model: str = ""
    model_id: str = Field("", description="The seat's model id (a client model's id, or `provider:model`).")


class SeatingDecided(EventBase):
    """Which persona speaks with which model and why (before the first model call; again after a restore never).
    ``markdown`` lists the seats when they are on more than one model, else it is empty."""

    type: Literal["seating.decided"] = "seating.decided"
    seating: Seating


class SeatFellBack(EventBase):
    """A seat's model could not serve it (unavailable, no consent, failing): ``personas`` speak with the chat's
    model from now on. Once per model per session; ``markdown`` is one note line."""

    type: Literal["seat.fellBack"] = "seat.fellBack"
    personas: list[str]
    from_model: ModelChoice
    to_model: ModelChoice
    reason: FallbackReason


class CostEstimated(EventBase):
    """The most the session (or the user action now starting) will spend, stated before its first model call:
    ``markdown`` is one line (calls at most, on which models, and what a budget cut)."""

    type: Literal["cost.estimated"] = "cost.estimated"
    plan: CallPlan


class PersonaDelta(EventBase):
    """The next piece of a persona's line as it streams (``markdown`` only; its first piece starts the line with
    the persona's name, the rest is its position; ``persona.completed`` ends the line with its vote and confidence)."""

    type: Literal["persona.delta"] = "persona.delta"
    persona: str
    cycle: int


class PersonaCompleted(EventBase):
    type: Literal["persona.completed"] = "persona.completed"
    persona: str
    cycle: int
    response: PersonaResponse


class VoteCast(EventBase):
    """A vote (``markdown`` is empty: the persona's line shows it, or the cycle's summary names the first votes)."""

    type: Literal["vote.cast"] = "vote.cast"
    vote: Vote


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
    """The final round's tally (``markdown`` is empty: the answer states the vote; the transcript has the table)."""

    type: Literal["votes.tallied"] = "votes.tallied"
    tally: VoteTally


class AnswerDelta(EventBase):
    """The next piece of the council's answer as the chair writes it (``markdown``: the first piece starts with the
    answer's heading, then the recommendation streams in). ``final.answer`` then carries only what the stream has
    not shown; a provider that cannot stream gives one piece."""

    type: Literal["answer.delta"] = "answer.delta"
    text: str = Field(description="The recommendation so far, as plain text: all of it, not just this piece.")


class AnswerWithdrawn(EventBase):
    """The answer that streamed (``answer.delta``) is not how the recorded answer begins — the chair's reply could
    not be used as it streamed (it was repaired, or the answer was consolidated from the advisors' replies after
    the chair failed) — so it is withdrawn, just before ``final.answer`` brings the whole answer. A client that can
    take back what it showed of the draft does so and skips ``markdown``; one that cannot (a chat) shows
    ``markdown``, which says the draft above is withdrawn and replaced by the answer below."""

    type: Literal["answer.withdrawn"] = "answer.withdrawn"
    text: str = Field(description="The withdrawn draft's recommendation, as plain text.")


class FinalAnswer(EventBase):
    """The council's answer, recorded. ``markdown`` is what ``answer.delta`` events have not shown yet (all of the
    answer when none streamed, or when what streamed is not how the answer begins: a reply that had to be repaired,
    an answer consolidated from the advisors' replies)."""

    type: Literal["final.answer"] = "final.answer"
    synthesis: CouncilSynthesis


class FollowUpDelta(EventBase):
    """The next piece of the moderator's answer to a follow-up as it streams (``markdown`` only; its first piece
    starts with the moderator's heading)."""

    type: Literal["followUp.delta"] = "followUp.delta"
    follow_up_id: str


class FollowUpAnswered(EventBase):
    """The moderator answered a follow-up (recorded in the session); ``markdown`` is what the stream has not shown
    yet, and a closing line on how to re-open the debate or start a new session."""

    type: Literal["followUp.answered"] = "followUp.answered"
    follow_up: e.FollowUp


class DebateReopened(EventBase):
    """The user re-opened the completed debate with new input; cycles, a vote and a new answer follow."""

    type: Literal["debate.reopened"] = "debate.reopened"
    input: e.UserInput
    limit: int = Field(description="The session's cycle cap for the re-opened debate.")
class CycleDropped(EventBase):
    """A cycle that did not conclude was taken back (the session stopped, or every advisor failed in it): its
    contributions are no longer part of the session, and the next cycle gets its number again. ``unusable``: the
    models answered but no reply in it could be used; the debate ends and the council answers from the cycles
    before it (the session keeps it in ``unusableCycles``)."""

    type: Literal["cycle.dropped"] = "cycle.dropped"
    cycle: int
    reason: Literal["stopped", "all_failed", "failed", "unusable"]


class SessionStopped(EventBase):
    """The session was stopped (paused) in its status: completed cycles, answers and assumptions are kept.
    Clients offer Resume (a turn with the `retry` command) and Cancel."""

    type: Literal["session.stopped"] = "session.stopped"
    status: e.SessionStatus
    completed_cycles: int


class SessionResumed(EventBase):
    type: Literal["session.resumed"] = "session.resumed"
    status: e.SessionStatus


class EvidenceGathered(EventBase):
    """The evidence a cycle's replies asked for was gathered from the workspace (or refused, with the reason), and
    every advisor reads it in the next cycle; cycle 0: the files the user attached. ``references`` are the file URIs
    the evidence is about, for a client to show as references (clickable)."""

    type: Literal["evidence.gathered"] = "evidence.gathered"
    cycle: int
    uses: list[EvidenceUse]
    references: list[str] = []


class MemoryRecalled(EventBase):
    """Similar past decisions from the workspace's decision memory were offered to the council as context."""

    type: Literal["memory.recalled"] = "memory.recalled"
    precedents: list[Precedent]
    method: Literal["embeddings", "tfidf", "keywords"] = Field(description="How their similarity was judged.")


class ErrorEvent(EventBase):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    persona: str | None = None
    retryable: bool = Field(False, description="Sending `retry` (or clicking Retry) may succeed now.")
    details: dict = {}


EVENT_TYPES: tuple[type[EventBase], ...] = (
    StatusChanged, Progress, SessionReplaced, PersonasSelected, QuestionAsked, QuestionsDropped, QuestionResolved,
    QuestionConfirmNew, AssumptionRecorded, CycleStarted, PersonaStarted, SeatingDecided, SeatFellBack,
    CostEstimated, PersonaDelta, PersonaCompleted, VoteCast, CycleCompleted, DebateLimitReached, OptionsProposed,
    VotesTallied, AnswerDelta, AnswerWithdrawn, FinalAnswer, FollowUpDelta, FollowUpAnswered, DebateReopened,
    CycleDropped, SessionStopped, SessionResumed, EvidenceGathered, MemoryRecalled, ErrorEvent,
)
Event = Annotated[reduce(or_, EVENT_TYPES), Field(discriminator="type")]
event_adapter: TypeAdapter[Event] = TypeAdapter(Event)
