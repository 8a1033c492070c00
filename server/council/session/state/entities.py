"""The eight entities of seed 002's data model as pydantic models (wire models too: ``council/snapshot`` returns a
:class:`ConversationSession` as is), with the rules of one entity, the status transition table (seed 002 plus one
documented extension) and ``check_turn`` (seed 002's MessageTurn validation); other changes live in ``reducer.py``.
A stop is not a transition: the session keeps its status and gets the ``stopped`` marker (only cancel leaves for
``cancelled``).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Literal

from pydantic import Field, model_validator

from council.camel import CamelModel
from council.errors import validation_error
from council.session.state.budget import CallPlan, Speculate
from council.session.state.convergence import Convergence, StopReason
from council.session.state.grounds import EvidenceUse, Precedent
from council.session.state.outputs import CouncilSynthesis, PersonaResponse, Vote, VoteOption, VoteTally
from council.session.state.seating import Seating

MAX_CLARIFICATION_ROUNDS = 3
DEFAULT_MAX_CYCLES = 10
REOPEN_CYCLES = 3  # debate cycles a re-opened debate may add beyond the ones it had (or its limit, if higher)
MAX_TOTAL_CYCLES = 50  # no session debates longer, however often it is extended or re-opened


def new_id() -> str:
    return str(uuid.uuid4())


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class SessionStatus(str, Enum):
    CREATED = "created"
    CLARIFYING = "clarifying"
    DEBATING = "debating"
    FINAL = "final"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


class ParticipantType(str, Enum):
    USER = "user"
    PERSONA = "persona"
    SYSTEM = "system"  # the moderator/chair: asks questions, states assumptions, writes the synthesis


class MessageType(str, Enum):
    QUESTION = "question"
    ANSWER = "answer"
    DISCUSSION = "discussion"
    CONCLUSION = "conclusion"
    ASSUMPTION_STATEMENT = "assumption_statement"


class QuestionStatus(str, Enum):
    PENDING = "pending"
    ANSWERED = "answered"
    SKIPPED = "skipped"
    DEFERRED = "deferred"


class DiscussionStatus(str, Enum):
    IN_PROGRESS = "in_progress"
    CONCLUDED = "concluded"
    LIMIT_REACHED = "limit_reached"


class Depth(str, Enum):
    BRIEF = "brief"
    STANDARD = "standard"
    DEEP = "deep"


class UserConfidence(str, Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Participant(CamelModel):
    participant_id: str = Field(default_factory=new_id)
    type: ParticipantType
    name: str = Field(min_length=1, max_length=80)
    role: str | None = None

    @property
    def is_primary_user(self) -> bool:
        return self.type is ParticipantType.USER


class CycleRef(CamelModel):
    cycle_type: Literal["clarification", "debate"]
    number: int = Field(ge=1)


class MessageTurn(CamelModel):
    turn_id: str = Field(default_factory=new_id)
    session_id: str
    sender: Participant
    recipient: Participant | None = None
    message_type: MessageType
    content: str
    timestamp: datetime
    sequence_number: int = Field(ge=1)
    related_cycle_or_round: CycleRef | None = None
    metadata: dict[str, Any] = {}


class Choice(CamelModel):
    label: str = Field(min_length=1, max_length=120)
    value: str = Field(min_length=1, max_length=120)


class ClarificationAnswer(CamelModel):
    answer_id: str = Field(default_factory=new_id)
    question_id: str
    session_id: str
    answer: str = Field(min_length=1)
    skip_command: bool = False
    confidence: UserConfidence | None = None
    created_at: datetime


class ChoiceLean(CamelModel):
    """One likely answer to a clarifying question and the course of action it would favour."""

    choice: str = Field(min_length=1, max_length=120, description="The choice's value.")
    favours: str | None = Field(None, max_length=200, description="The candidate it favours (None: no clear lean).")


class QuestionStakes(CamelModel):
    """What hangs on a clarifying question: the courses of action the council is likely to weigh, which one each
    likely answer favours, and how decisive the answer is (computed from the leans, never taken from a model)."""

    candidates: list[str] = Field(default_factory=list, max_length=4, description="The courses of action in play.")
    leans: list[ChoiceLean] = Field(default_factory=list, max_length=5, description="Per choice, what it favours.")
    decisiveness: float = Field(0.0, ge=0.0, le=1.0, description="The share of pairs of likely answers that favour "
                                                                 "different courses (0: every answer leads to the "
                                                                 "same recommendation).")

    @property
    def decisive(self) -> bool:
        """Whether the answer would move the recommendation: two likely answers favour different courses."""
        return self.decisiveness > 0


class ClarificationQuestion(CamelModel):
    question_id: str = Field(default_factory=new_id)
    session_id: str
    round_number: int = Field(ge=1, le=MAX_CLARIFICATION_ROUNDS)
    sequence_in_round: int = Field(ge=1)
    question: str = Field(min_length=1)
    target_ambiguity: str
    asked_by: Participant
    choices: list[Choice] = []
    free_text_allowed: bool = True
    default_assumption: str = Field(description="What the council assumes if the user skips this question.")
    stakes: QuestionStakes | None = Field(None, description="What hangs on the answer (None: planned before "
                                                           "questions were weighed).")
    user_answer: ClarificationAnswer | None = None
    status: QuestionStatus = QuestionStatus.PENDING
    revisited: bool = False
    times_asked: int = Field(0, ge=0, description="How often it was put to the user: a deferred or revisited "
                                                  "question is asked again, and a client's buttons for each asking "
                                                  "are new ones (their idempotency keys differ).")
    created_at: datetime
    answered_at: datetime | None = None

    @model_validator(mode="after")
    def _answered_has_answer(self) -> ClarificationQuestion:
        if self.status is QuestionStatus.ANSWERED and self.user_answer is None:
            raise ValueError("an answered question needs a ClarificationAnswer")
        return self


class Assumption(CamelModel):
    assumption_id: str = Field(default_factory=new_id)
    session_id: str
    related_question_id: str | None = None
    assumption: str = Field(min_length=1)
    rationale: str = Field(min_length=1)
    added_at: datetime


class CouncilDiscussion(CamelModel):
    discussion_id: str = Field(default_factory=new_id)
    session_id: str
    cycle_number: int = Field(ge=1)
    participating_personas: list[Participant] = Field(min_length=1)
    exchange_starts: datetime
    exchange_ends: datetime | None = None
    topic: str
    message_turn_ids: list[str] = []
    resolution_summary: str | None = None
    status: DiscussionStatus = DiscussionStatus.IN_PROGRESS
    convergence: Convergence | None = None
    stop_reason: StopReason | None = Field(None, description="Why the debate ended after this cycle, if it did.")

    @model_validator(mode="after")
    def _concluded_has_summary(self) -> CouncilDiscussion:
        if self.status is not DiscussionStatus.IN_PROGRESS and not self.resolution_summary:
            raise ValueError("a concluded discussion needs a resolutionSummary")
        return self


class FollowUp(CamelModel):
    """A question the user asked about a completed session, and the moderator's answer from that session."""

    follow_up_id: str = Field(default_factory=new_id)
    session_id: str
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    after_cycle: int = Field(ge=0, description="The debate cycles the session had when it was asked.")
    asked_at: datetime
    answered_at: datetime


class UserInput(CamelModel):
    """What the user added when re-opening a completed debate (every persona sees it from then on)."""

    input_id: str = Field(default_factory=new_id)
    session_id: str
    text: str = Field(min_length=1)
    after_cycle: int = Field(ge=0, description="The debate cycles the session had when the debate re-opened.")
    added_at: datetime


class Revisit(CamelModel):
    """A skipped or deferred question asked again after the council's answer (seed 002's ``deferred``): its answer
    replaces the assumption, and only a new vote and answer run on the positions the council already has."""

    revisit_id: str = Field(default_factory=new_id)
    session_id: str
    question_id: str
    question: str = Field(min_length=1)
    assumed: str | None = Field(None, description="What the council had assumed for it (None: nothing yet).")
    answer: str | None = Field(None, description="The user's answer this time (None: not given, or skipped again).")
    after_cycle: int = Field(ge=0, description="The debate cycles the session had when it was revisited.")
    recommendation_before: str = Field("", description="The council's recommendation before the revisit.")
    winner_before: str | None = Field(None, description="The winning option before the revisit (its id).")
    votes_before: dict[str, str] = Field(default_factory=dict, description="Persona → option of the last vote "
                                                                          "before the revisit.")
    started_at: datetime
    settled: bool = Field(False, description="The council has answered again (or kept its answer).")


class PersonaSelection(CamelModel):
    selection_id: str = Field(default_factory=new_id)
    session_id: str
    request_classification: str
    selected_personas: list[Participant] = Field(min_length=1)
    reason: str
    user_override: bool = False
    overridden_personas: list[str] = []
    method: str = Field("keywords", description="How personas were ranked: override, embeddings, tfidf, keywords.")
    chosen_for: dict[str, list[str]] = Field(
        {}, description="Routed persona name → the words of the request that seated it (empty for an override).")
    created_at: datetime

    @model_validator(mode="after")
    def _override_names_personas(self) -> PersonaSelection:
        if self.user_override and not self.overridden_personas:
            raise ValueError("userOverride needs overriddenPersonas")
        return self


class SessionSettings(CamelModel):
    """Per-session knobs, fixed at creation (extended by ``extend debate``)."""

    max_cycles: int = Field(DEFAULT_MAX_CYCLES, ge=1, le=50)
    extended_max_cycles: int = Field(20, ge=1, le=50, description="Ceiling when extended debate is requested.")
    min_cycles: int = Field(1, ge=1, le=50,
                            description="Cycles before the council may stop because most see no need to go on (1: "
                                        "from the first vote, when two thirds of the advisors say another cycle "
                                        "would not change their vote).")
    depth: Depth = Depth.STANDARD
    max_personas: int = Field(5, ge=1, le=12)
    clarify: bool = True
    language: str = "en"
    evidence: bool = Field(False, description="The advisors may ask for evidence from the workspace (the sidecar "
                                              "has one, and evidence is on).")
    max_model_calls: int | None = Field(None, ge=3, description="The session's budget of model calls, retries "
                                                                "included (None: no budget).")
    speculate: Speculate = Field("auto", description="Whether the second cycle starts beside the options call: "
                                                     "`auto` only where every seat's model is free to call (a local "
                                                     "one) and the calls can run beside the options call (another "
                                                     "server, or one that runs several requests at once), `always`, "
                                                     "or `never` (README, \"The cost before it is spent\").")

    def cycle_cap(self, extended: bool) -> int:
        """The cycle cap before any re-opening (extended debate asked: the extended one)."""
        return max(self.max_cycles, self.extended_max_cycles) if extended else self.max_cycles


class ModelUse(CamelModel):
    """Which provider and model served a role (persona name, ``clarifier``, ``moderator``, ``synthesizer``)."""

    provider: str
    model: str
    calls: int = 0
    failures: int = 0


class Spend(CamelModel):
    """What model calls used, as their backends reported it (the agent CLIs do): a figure none reported stays None."""

    input_tokens: int | None = Field(None, ge=0, description="Prompt tokens (a prompt cache's included).")
    output_tokens: int | None = Field(None, ge=0, description="Reply tokens.")
    cost_usd: float | None = Field(None, ge=0, description="What the calls cost in US dollars (Claude Code says so "
                                                         "when it bills API usage).")
    premium_requests: float | None = Field(None, ge=0, description="GitHub Copilot's premium requests used.")

    def plus(self, other: Spend) -> Spend:
        def add(a: float | None, b: float | None) -> float | None:
            return b if a is None else a if b is None else a + b

        return Spend(**{key: add(getattr(self, key), getattr(other, key)) for key in type(self).model_fields})


class SessionMetadata(CamelModel):
    correlation_id: str = Field(default_factory=new_id)
    models: dict[str, ModelUse] = {}
    timings_ms: dict[str, float] = {}
    error_categories: list[str] = []
    feature_flags: dict[str, bool] = {}
    context: list[str] = Field(default_factory=list, description="Names of attached context items.")
    calls_by_model: dict[str, int] = Field(default_factory=dict, description="Model calls made per model label, "
                                                                             "retries included.")
    failed_by_model: dict[str, int] = Field(default_factory=dict, description="Of those, the calls that failed "
                                                                              "(the model gave no reply).")
    cancelled_by_model: dict[str, int] = Field(default_factory=dict, description="Of those, the calls sent and then "
                                               "cancelled (not needed any more, or stopped): not failures.")
    spent_by_model: dict[str, Spend] = Field(default_factory=dict, description="What the calls used per model "
                                             "label, where the model says (tokens, cost, premium requests).")
    calls: int = Field(0, ge=0, description="Every model call made.")
    first_calls: int = Field(0, ge=0, description="Model calls made that were not retries.")


class ConversationSession(CamelModel):
    session_id: str = Field(default_factory=new_id)
    user_id: str = "anonymous"
    request_text: str = Field(min_length=1)
    status: SessionStatus = SessionStatus.CREATED
    stopped: bool = Field(False, description="Paused by `council/stop` (or `$/cancelRequest` on a running turn): "
                                             "the session waits in its status until `retry` resumes it.")
    created_at: datetime
    updated_at: datetime
    clarification_rounds: int = Field(0, ge=0, le=MAX_CLARIFICATION_ROUNDS,
                                      description="Clarification rounds completed: every question of the round "
                                                  "answered, skipped or deferred.")
    debate_cycles: int = Field(0, ge=0)
    unusable_cycles: list[int] = Field(default_factory=list, description="Debate cycles that ran but were dropped "
                                       "because no advisor's reply in them could be used (the council answered "
                                       "from the cycles before; a later cycle may get the number again).")
    extended_debate_requested: bool = False
    assumption_log: list[Assumption] = []
    participants: list[Participant] = []
    message_turns: list[MessageTurn] = []
    final_answer: str | None = None
    metadata: SessionMetadata = Field(default_factory=SessionMetadata)
    # Beyond the seed's fields: the other entities the session owns.
    settings: SessionSettings = Field(default_factory=SessionSettings)
    context_text: str = ""
    questions: list[ClarificationQuestion] = Field(default_factory=list, description="Questions asked so far.")
    planned_questions: list[ClarificationQuestion] = Field(
        default_factory=list, description="Questions of the open round not asked yet (asked one at a time)."
    )
    unasked_questions: list[ClarificationQuestion] = Field(
        default_factory=list, description="Questions the moderator weighed and did not ask: no likely answer to "
                                          "them would change the recommendation.")
    discussions: list[CouncilDiscussion] = []
    persona_selection: PersonaSelection | None = None
    responses: list[PersonaResponse] = []
    options: list[VoteOption] = []
    votes: list[Vote] = []
    tally: VoteTally | None = None
    synthesis: CouncilSynthesis | None = None
    follow_ups: list[FollowUp] = Field(default_factory=list, description="Follow-up questions after completion.")
    user_inputs: list[UserInput] = Field(default_factory=list, description="What the user added when re-opening "
                                                                           "the debate.")
    reopened_cycle_limit: int = Field(0, ge=0, description="Re-opening lets the debate run at least to this cycle "
                                                           "(0: never re-opened); the cap is the higher of this "
                                                           "and the settings' limit.")
    revisits: list[Revisit] = Field(default_factory=list, description="Skipped or deferred questions asked again "
                                                                      "after the answer.")
    evidence: list[EvidenceUse] = Field(default_factory=list, description="What the advisors looked up in the "
                                        "workspace, and the files the user attached, in the order gathered.")
    evidence_rounds: list[int] = Field(default_factory=list, description="The cycles whose evidence requests "
                                       "were served (0: the attachments).")
    workspace_overview: list[str] = Field(default_factory=list, description="The workspace's top-level entries "
                                          "the advisors were shown (empty: no evidence tools).")
    precedents: list[Precedent] = Field(default_factory=list, description="Similar past decisions recalled from "
                                        "the workspace's decision memory.")
    seating: Seating | None = Field(None, description="Which persona speaks with which model (None: sessions "
                                                      "journaled before seating existed).")
    call_plans: list[CallPlan] = Field(default_factory=list, description="What the session said it would spend, "
                                                                         "phase by phase (the last holds the totals).")

    @property
    def cycle_limit(self) -> int:
        return max(self.settings.cycle_cap(self.extended_debate_requested), self.reopened_cycle_limit)

    @property
    def planned_rounds(self) -> int:
        """Clarification rounds planned so far (each with at least one question to ask)."""
        return max((q.round_number for q in [*self.questions, *self.planned_questions]), default=0)

    @property
    def active_question(self) -> ClarificationQuestion | None:
        return next((q for q in self.questions if q.status is QuestionStatus.PENDING), None)

    @property
    def personas(self) -> list[Participant]:
        return [p for p in self.participants if p.type is ParticipantType.PERSONA]

    @property
    def moderator(self) -> Participant:
        return next(p for p in self.participants if p.type is ParticipantType.SYSTEM)

    @property
    def user(self) -> Participant:
        return next(p for p in self.participants if p.type is ParticipantType.USER)

    @property
    def open_revisit(self) -> Revisit | None:
        """The revisit in progress (asked again, the council not answered again yet)."""
        return self.revisits[-1] if self.revisits and not self.revisits[-1].settled else None

    @property
    def open_cycle(self) -> int | None:
        """The number of the debate cycle in progress, if one is."""
        d = self.discussions[-1] if self.discussions else None
        return d.cycle_number if d is not None and d.status is DiscussionStatus.IN_PROGRESS else None

    @property
    def final_round(self) -> int:
        """The last round that has votes (only its votes are tallied)."""
        return max((v.cycle for v in self.votes), default=0)

    @property
    def tool_uses(self) -> list[EvidenceUse]:
        """The evidence the advisors asked for (not the attachments, which the prompts carry as context already)."""
        return [u for u in self.evidence if u.tool != "attachment"]

    def votes_in(self, cycle: int) -> list[Vote]:
        return [v for v in self.votes if v.cycle == cycle]

    def latest_responses(self, cycle: int | None = None) -> list[PersonaResponse]:
        """Responses of ``cycle`` (default: the last cycle), in persona order; cycle 0 is a council of one's answer
        (the latest, when it answered again after a revisit)."""
        cycle = self.debate_cycles if cycle is None else cycle
        return list({resp.persona: resp for resp in self.responses if resp.cycle == cycle}.values())

    def question(self, question_id: str) -> ClarificationQuestion | None:
        return next((q for q in self.questions if q.question_id == question_id), None)

    def participant(self, name: str) -> Participant | None:
        return next((p for p in self.participants if p.name == name), None)


S = SessionStatus  # short, for the tables below

TRANSITIONS: dict[S, frozenset[S]] = {
    S.CREATED: frozenset({S.CLARIFYING, S.DEBATING, S.CANCELLED}),
    S.CLARIFYING: frozenset({S.CLARIFYING, S.DEBATING, S.FINAL, S.CANCELLED}),  # again: more questions, a deferred one
    S.DEBATING: frozenset({S.DEBATING, S.FINAL, S.CANCELLED}),  # again: the next cycle
    S.FINAL: frozenset({S.COMPLETED, S.CANCELLED}),
    # debating: the extension, "extend debate" after the debate stopped at its cycle limit; clarifying: seed 002,
    # revisiting a skipped or deferred question after the answer
    S.COMPLETED: frozenset({S.DEBATING, S.CLARIFYING}),
    S.CANCELLED: frozenset(),
}

TERMINAL: frozenset[S] = frozenset({S.COMPLETED, S.CANCELLED})


def can_transition(current: S, target: S) -> bool:
    return target in TRANSITIONS[current]


def check_transition(current: S, target: S) -> None:
    if not can_transition(current, target):
        raise validation_error(
            f"illegal status transition {current.value} → {target.value}",
            current=current.value,
            target=target.value,
            allowed=sorted(s.value for s in TRANSITIONS[current]),
        )


# Which statuses each message type may be written in (seed 002, MessageTurn validation).
TURN_STATUSES: dict[MessageType, frozenset[S]] = {
    MessageType.QUESTION: frozenset({S.CLARIFYING}),
    MessageType.ANSWER: frozenset({S.CLARIFYING}),
    MessageType.ASSUMPTION_STATEMENT: frozenset({S.CLARIFYING}),
    MessageType.DISCUSSION: frozenset({S.DEBATING}),
    MessageType.CONCLUSION: frozenset({S.DEBATING}),
}


def check_turn(session: ConversationSession, turn: MessageTurn, kind: MessageType | None = None) -> None:
    if kind is not None and turn.message_type is not kind:
        raise validation_error(f"this record needs a {kind.value} turn", got=turn.message_type.value)
    last = session.message_turns[-1].sequence_number if session.message_turns else 0
    if turn.sequence_number != last + 1:
        raise validation_error("message turn out of sequence", expected=last + 1, got=turn.sequence_number)
    if session.status not in TURN_STATUSES[turn.message_type]:
        raise validation_error(
            f"a {turn.message_type.value} turn is not allowed while the session is {session.status.value}",
            messageType=turn.message_type.value, status=session.status.value,
        )
    if turn.message_type is MessageType.ANSWER and turn.sender.type is not ParticipantType.USER:
        raise validation_error("answers come from the user")
    if turn.message_type is MessageType.DISCUSSION and turn.sender.type is not ParticipantType.PERSONA:
        raise validation_error("discussion turns come from personas")

