"""Journal records: every change to a ConversationSession is one of these, applied by ``reducer.apply``.

The journal is append-only and records carry their own ids and timestamps, so replaying it rebuilds an equal session
(which is how sessions are restored). ``stable_prefix``: the part of a restored journal a new sidecar continues from.
"""

from __future__ import annotations

from datetime import datetime
from functools import reduce
from operator import or_
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from council.camel import CamelModel
from council.session.state import entities as e
from council.session.state.budget import CallPlan
from council.session.state.convergence import Convergence, StopReason
from council.session.state.grounds import EvidenceUse, Precedent
from council.session.state.outputs import CouncilSynthesis, PersonaResponse, Vote, VoteOption, VoteTally
from council.session.state.seating import FallbackReason, Seating


class RecordBase(CamelModel):
    at: datetime


class SessionCreated(RecordBase):
    kind: Literal["session_created"] = "session_created"
    session_id: str
    user: e.Participant
    moderator: e.Participant
    request_text: str
    settings: e.SessionSettings
    context_text: str = ""
    context_names: list[str] = []
    correlation_id: str
    extended_debate: bool = False
    workspace_overview: list[str] = []  # the workspace's top level shown to the advisors (evidence on)


class PersonasSelected(RecordBase):
    kind: Literal["personas_selected"] = "personas_selected"
    selection: e.PersonaSelection


class StatusSet(RecordBase):
    kind: Literal["status_set"] = "status_set"
    status: e.SessionStatus
    reason: str = ""


class QuestionsPlanned(RecordBase):
    kind: Literal["questions_planned"] = "questions_planned"
    round: int
    questions: list[e.ClarificationQuestion]


class RevisitStarted(RecordBase):
    """A skipped or deferred question asked again after the council's answer (:class:`entities.Revisit`)."""

    kind: Literal["revisit_started"] = "revisit_started"
    revisit: e.Revisit


class QuestionsDropped(RecordBase):
    """Questions weighed and not asked: no likely answer would change the recommendation (``not_decisive``), or
    nothing was worth asking (``clear``, no questions)."""

    kind: Literal["questions_dropped"] = "questions_dropped"
    round: int = Field(ge=1)
    questions: list[e.ClarificationQuestion] = []
    reason: Literal["clear", "not_decisive"] = "not_decisive"
    asked: int = Field(0, ge=0, description="Questions of the same round that will be asked.")


class QuestionAsked(RecordBase):
    kind: Literal["question_asked"] = "question_asked"
    question_id: str
    turn: e.MessageTurn
    revisit: bool = False  # a skipped or deferred question asked again after the answer
    reused: bool = False  # answered at once by a reply the user gave a session a reload lost (session/earlier)


class QuestionAnswered(RecordBase):
    kind: Literal["question_answered"] = "question_answered"
    answer: e.ClarificationAnswer
    turn: e.MessageTurn


class QuestionSkipped(RecordBase):
    kind: Literal["question_skipped"] = "question_skipped"
    answer: e.ClarificationAnswer
    assumption: e.Assumption
    turn: e.MessageTurn


class QuestionDeferred(RecordBase):
    kind: Literal["question_deferred"] = "question_deferred"
    question_id: str


class CycleStarted(RecordBase):
    kind: Literal["cycle_started"] = "cycle_started"
    discussion: e.CouncilDiscussion


class PersonaSpoke(RecordBase):
    kind: Literal["persona_spoke"] = "persona_spoke"
    response: PersonaResponse
    turn: e.MessageTurn


class CycleConcluded(RecordBase):
    kind: Literal["cycle_concluded"] = "cycle_concluded"
    cycle: int
    resolution_summary: str
    status: e.DiscussionStatus
    convergence: Convergence | None = None
    stop_reason: StopReason | None = None


class OptionsSet(RecordBase):
    kind: Literal["options_set"] = "options_set"
    options: list[VoteOption]


class VoteCast(RecordBase):
    kind: Literal["vote_cast"] = "vote_cast"
    vote: Vote


class ConclusionStated(RecordBase):
    kind: Literal["conclusion_stated"] = "conclusion_stated"
    turn: e.MessageTurn


class TallySet(RecordBase):
    kind: Literal["tally_set"] = "tally_set"
    tally: VoteTally


class DebateExtended(RecordBase):
    kind: Literal["debate_extended"] = "debate_extended"


class CycleDropped(RecordBase):
    """A cycle that did not conclude is taken back with all it recorded; the next cycle gets its number again."""

    kind: Literal["cycle_dropped"] = "cycle_dropped"
    cycle: int
    reason: Literal["stopped", "all_failed", "failed", "unusable"] = "stopped"


class SessionStopped(RecordBase):
    """The session is paused in its status (``council/stop``); ``retry`` resumes it."""

    kind: Literal["session_stopped"] = "session_stopped"
    reason: str = ""


class SessionResumed(RecordBase):
    kind: Literal["session_resumed"] = "session_resumed"


class SynthesisSet(RecordBase):
    kind: Literal["synthesis_set"] = "synthesis_set"
    synthesis: CouncilSynthesis
    final_answer: str


class FollowUpAnswered(RecordBase):
    """The moderator answered a follow-up question about the completed session."""

    kind: Literal["follow_up_answered"] = "follow_up_answered"
    follow_up: e.FollowUp


class DebateReopened(RecordBase):
    """The user re-opened the completed debate with something new to weigh."""

    kind: Literal["debate_reopened"] = "debate_reopened"
    input: e.UserInput


class EvidenceGathered(RecordBase):
    """A cycle's evidence requests were served or refused (cycle 0: the files the user attached)."""

    kind: Literal["evidence_gathered"] = "evidence_gathered"
    cycle: int = Field(ge=0)
    uses: list[EvidenceUse] = []


class PrecedentsRecalled(RecordBase):
    """Similar past decisions were recalled from the workspace's decision memory as the session started."""

    kind: Literal["precedents_recalled"] = "precedents_recalled"
    precedents: list[Precedent] = Field(min_length=1)
    method: Literal["embeddings", "tfidf", "keywords"] = "tfidf"


class ModelUsed(RecordBase):
    kind: Literal["model_used"] = "model_used"
    role: str
    provider: str
    model: str
    failed: bool = False
    latency_ms: float = 0.0
    retry: bool = False  # a repair, or the same call again on the chat's model after a seat's model failed
    cancelled: bool = False  # sent, then cancelled before its reply (not needed any more, or stopped): not failed
    spent: e.Spend | None = None  # what the call used, where its backend said (the agent CLIs do)


class SeatingDecided(RecordBase):
    """Which persona speaks with which model, decided as the session starts."""

    kind: Literal["seating_decided"] = "seating_decided"
    seating: Seating


class SeatFellBack(RecordBase):
    """A seat's model failed: every seat on it speaks with the chat's model from now on."""

    kind: Literal["seat_fell_back"] = "seat_fell_back"
    model_id: str
    reason: FallbackReason
    detail: str = ""


class CallsPlanned(RecordBase):
    """The most the session (or a user action in it) will spend, stated before its first call."""

    kind: Literal["calls_planned"] = "calls_planned"
    plan: CallPlan


Record = Annotated[reduce(or_, RecordBase.__subclasses__()), Field(discriminator="kind")]  # every class above
journal_adapter: TypeAdapter[list[Record]] = TypeAdapter(list[Record])


def stable_prefix(journal: list[RecordBase]) -> list[RecordBase]:
    """The journal without a debate cycle that never concluded (the old sidecar died in it: it runs again).

    Everything a cycle records happens between its ``CycleStarted`` and ``CycleConcluded``; cutting at the last
    unconcluded start leaves a session whose status is still ``debating``, so ``retry`` resumes the debate. A
    cycle taken back by ``CycleDropped`` (a stop) is closed too, and the stop that follows it is kept.
    """
    started = None
    for i, rec in enumerate(journal):
        if isinstance(rec, CycleStarted):
            started = i
        elif isinstance(rec, CycleConcluded | CycleDropped):
            started = None
    return journal[:started] if started is not None else list(journal)
