"""Client → server requests: every ``council/*`` method with its params and result model.

Clients first do the standard ``initialize``/``initialized`` handshake (the sidecar is a pygls language server, so
vscode-languageclient can host it), then call these. :data:`METHODS` is the registry the server wires and
``docs/protocol.md`` is generated from.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator
from pydantic_core import PydanticCustomError

from council.camel import CamelModel, SnakeModel
from council.personas.contract import PersonaInfo
from council.protocol import consult
from council.protocol.constants import MAX_CHOICE, MAX_CONTEXT, MAX_MODEL_SPECS, MAX_TEXT
from council.protocol.events import EarlierReason
from council.protocol.language import LANGUAGE_DOC, UI_LANGUAGE_DOC, ChatLabels, Language
from council.protocol.seating import SEATING_DOC, CallUsage, ClientModel, SeatingPolicy
from council.providers.registry import ProviderInfo
from council.review.models import ChangeType, CouncilRequest, ReviewedDecision
from council.session.state.budget import SPECULATE_DOC, Speculate
from council.session.state.entities import ClarificationQuestion, ConversationSession, Depth, SessionStatus
from council.session.steps.intents import Intent


class TurnCommand(str, Enum):
    """Slash commands a client may forward with a turn (``/new``, ``/skip`` …). ``answer``: the turn's text is the
    answer to the open question, whatever it says. ``extend`` with text re-opens a completed debate with it.
    ``revisit`` (after the answer) asks a skipped or deferred question again: the turn's ``questionId`` names it
    (else its text: the id, or the question's number among those that can be revisited; with one such question,
    nothing); its answer replaces the assumption and re-runs one vote round and the answer."""

    NEW = "new"
    ANSWER = "answer"
    SKIP = "skip"
    SKIP_ALL = "skipAll"
    MORE = "more"
    DEFER = "defer"
    EXTEND = "extend"
    CANCEL = "cancel"
    STOP = "stop"
    STATUS = "status"
    PERSONAS = "personas"
    RETRY = "retry"
    REVISIT = "revisit"


class Reference(CamelModel):
    """Context attached to a turn (a file, a selection, a pasted snippet)."""

    name: str = Field(min_length=1, max_length=300)
    uri: str | None = Field(None, max_length=2000)
    content: str = Field("", max_length=MAX_CONTEXT)


class EarlierAnswer(CamelModel):
    """One thing the user told a session the sidecar no longer has: a question and the reply to it."""

    question: str = Field(min_length=1, max_length=MAX_TEXT)
    action: Literal["answer", "skip", "skip_all"] = "answer"
    answer: str | None = Field(None, min_length=1, max_length=MAX_TEXT,
                               description="The reply, for `answer` (the text, or a choice's label).")


class EarlierSession(CamelModel):
    """What the user told a session that is gone (a reload without `keepAcrossReloads`), as the chat history shows
    it: its question and the replies to its clarifying questions. A new session started with it reuses the replies
    whose questions it asks again (and, for a bare "continue", the earlier question), says that the earlier session is
    gone (first) and what it reused (last), each in one line."""

    problem: str | None = Field(None, max_length=MAX_TEXT)
    answers: list[EarlierAnswer] = Field(default_factory=list, max_length=30)
    reason: EarlierReason = Field("unknown_session", description="Why the earlier session is gone, as the error "
                                  "that refused it said (`details.reason`); the new session says so in its first "
                                  "event (`session.replaced`).")


class SessionOptions(CamelModel):
    """Per-session choices, honoured when a turn starts a new session."""

    personas: list[str] | None = Field(None, max_length=12, description="Persona names or ids; overrides routing.")
    depth: Depth | None = None
    max_cycles: int | None = Field(None, ge=1, le=50)
    max_personas: int | None = Field(None, ge=1, le=12)
    extended_debate: bool = False
    clarify: bool = True
    provider: str | None = Field(None, max_length=100, description="Provider id to use for this session.")
    model: str | None = Field(None, max_length=300)
    user_id: str | None = Field(None, max_length=80, description="The user's display name in the transcript.")
    seating: SeatingPolicy | None = Field(None, description=SEATING_DOC)
    models: list[Annotated[str, StringConstraints(min_length=3, max_length=400)]] | None = Field(
        None, max_length=MAX_MODEL_SPECS,
        description=f"`provider:model` specs to seat the council on (`council ask --models`), at most "
                    f"{MAX_MODEL_SPECS} (a council seats at most 12 personas, so more could never be used): the first "
                    "is the chat's model (moderator, clarifier, chair); `provider` is a configured provider's name or "
                    "a kind; the model may contain colons.")
    max_model_calls: consult.ModelCallBudget | None = Field(
        None, description="The session's budget of model calls, retries included: the council plans fewer cycles or "
                          "seats to fit and says so (3 is the smallest budget; a council of one needs 2: its answer "
                          "and the chair's).")
    language: Language | None = Field(None, description=LANGUAGE_DOC)
    ui_language: str | None = Field(None, max_length=35, description=UI_LANGUAGE_DOC)
    speculate: Speculate | None = Field(None, description=SPECULATE_DOC)


class ClientCapabilities(CamelModel):
    """What the client can do for the sidecar during this turn."""

    completion: bool = Field(False, description="The client answers council/complete with its own model.")
    completion_model: str | None = Field(None, max_length=300, description="Name of the client's model.")
    models: list[ClientModel] = Field(default_factory=list, max_length=50,
                                      description="The chat models the client can serve `council/complete` with "
                                                  "(`modelId`); empty: only its one model, as `completionModel`.")
    chat_model_id: str | None = Field(None, max_length=300,
                                      description="The id (in `models`) of the chat's own model: the moderator, "
                                                  "the clarifier, the chair and every fallback use it.")


class TurnParams(CamelModel):
    """``council/turn``: forward one chat turn. Without ``sessionId`` (or with ``/new``) it starts a session."""

    session_id: str | None = Field(None, max_length=100)
    text: str = Field("", max_length=MAX_TEXT)
    command: TurnCommand | None = None
    references: list[Reference] = Field(
        default_factory=list, max_length=50,
        description=f"At most {MAX_CONTEXT} characters of `content` in all references together; more is a "
                    "validation error with `details.limit` and `details.actual`.")
    options: SessionOptions = Field(default_factory=SessionOptions)
    client: ClientCapabilities = Field(default_factory=ClientCapabilities)
    idempotency_key: str | None = Field(None, min_length=1, max_length=200)
    question_id: str | None = Field(None, min_length=1, max_length=100,
                                    description="With `command: \"revisit\"`: the skipped or deferred question to "
                                                "ask again.")
    new_session_id: str | None = Field(
        None, min_length=8, max_length=100, pattern=r"^[A-Za-z0-9_.:-]+$",
        description="If this turn starts a session, give it this id (unused ids only), so the client can match "
                    "events to its turn from the first one.")
    earlier: EarlierSession | None = Field(
        None, description="If this turn starts a session because the earlier one is gone: what the user told that "
                          "one (see EarlierSession).")

    @field_validator("references")
    @classmethod
    def _context_fits(cls, references: list[Reference]) -> list[Reference]:
        """MAX_CONTEXT is the whole turn's attached context, not each reference's (50 of them would be 10 MB)."""
        actual = sum(len(ref.content) for ref in references)
        if actual > MAX_CONTEXT:
            raise PydanticCustomError(
                "context_too_long", "the references hold {actual} characters of content; at most {limit} together",
                {"limit": MAX_CONTEXT, "actual": actual})
        return references


class AnswerParams(CamelModel):
    """``council/answer``: answer, skip or defer one question by id (what a clicked button sends)."""

    session_id: str = Field(min_length=1, max_length=100)
    question_id: str = Field(min_length=1, max_length=100)
    action: Literal["answer", "skip", "defer"] = "answer"
    text: str | None = Field(None, min_length=1, max_length=MAX_TEXT)
    choice: str | None = Field(None, min_length=1, max_length=MAX_CHOICE, description="The value of a choice.")
    client: ClientCapabilities = Field(default_factory=ClientCapabilities)
    idempotency_key: str = Field(min_length=1, max_length=200)


class SessionRef(CamelModel):
    session_id: str = Field(min_length=1, max_length=100)


class SnapshotParams(SessionRef):
    include_journal: bool = False


class RestoreParams(CamelModel):
    """``council/restore``: bring a session back into a new sidecar from the journal a client kept."""

    session_id: str = Field(min_length=1, max_length=100)
    journal: list[dict[str, Any]] = Field(min_length=1, max_length=20_000,
                                          description="The session's journal, as `council/snapshot` "
                                                      "(`includeJournal`) returned it.")
    last_seq: int = Field(0, ge=0, description="The last event seq the client has; new events continue after it.")


class EmptyParams(CamelModel):
    pass


class ProvidersParams(CamelModel):
    ask_clis: bool = Field(False, description=(
        "Also ask each agent CLI one tiny prompt (“Reply with the word OK.”): one model call per CLI, billed as "
        "its sign-in bills it (`council doctor`). Without it an agent CLI is checked by its own sign-in check "
        "alone, no model call."))


class Awaiting(str, Enum):
    """What the session waits for when a turn returns."""

    ANSWER = "answer"  # a question is pending
    NOTHING = "nothing"  # completed (plain text is a follow-up) or cancelled (a new turn starts a new session)


class RevisitOffer(CamelModel):
    """A followup a client offers under the answer: revisit the skipped question behind an assumption the
    recommendation hinges on (a turn with `command: "revisit"` and this `questionId`; VS Code: `/revisit` with the
    id as the followup's prompt)."""

    question_id: str
    label: str = Field(description="The followup's label, written by the sidecar.")


class TurnResult(CamelModel):
    """Result of ``council/turn`` and ``council/answer``: where the session stands once the turn has run."""

    session_id: str | None = Field(None, description="None only when no session exists (e.g. `status` first).")
    intent: Intent
    status: SessionStatus | None = None
    awaiting: Awaiting
    question: ClarificationQuestion | None = None
    final_answer: str | None = None
    can_extend: bool = False
    limit_reached: bool = Field(False, description="The last debate stopped at its cycle cap (not by agreement).")
    stopped: bool = Field(False, description="The session is stopped (paused): a turn with the `retry` command "
                                             "resumes it, `cancel` ends it.")
    message: str | None = Field(None, description="Markdown for the user written by the sidecar (status, council "
                                "members, notes); print it as is.")
    duplicate: bool = Field(False, description="True when the idempotency key was seen: nothing was done again.")
    usage: CallUsage | None = Field(None, description="Model calls the session made so far, per model.")
    revisit: list[RevisitOffer] = Field(default_factory=list, description="Once the answer is given: the questions "
                                   "behind the assumptions it hinges on, most critical first, to offer as followups.")
    language: Language = Field("en", description="The session's language: every text the sidecar writes for it.")
    labels: ChatLabels | None = Field(None, description="The buttons' and followups' words in the session's language "
                                                        "(absent when no session exists).")


class CancelResult(CamelModel):
    session_id: str
    status: SessionStatus
    cancelled_calls: int = 0


class StopResult(CamelModel):
    session_id: str
    status: SessionStatus = Field(description="Unchanged by a stop: the session waits in it.")
    stopped: bool = Field(description="The session is stopped now (by this call, or by an earlier stop or "
                                      "`$/cancelRequest`); false when nothing was running, e.g. a question is open.")
    cancelled_calls: int = Field(0, description="Model calls that were in flight and were stopped.")


class PersonasResult(CamelModel):
    personas: list[PersonaInfo]
    councils: dict[str, list[str]]


class ProvidersResult(CamelModel):
    default: str
    providers: list[ProviderInfo]


class SnapshotResult(CamelModel):
    session: ConversationSession
    journal: list[dict[str, Any]] | None = None
    transcript_markdown: str


class RestoreResult(CamelModel):
    session_id: str
    status: SessionStatus
    awaiting: Awaiting
    question: ClarificationQuestion | None = None
    records: int = Field(description="Journal records replayed (an interrupted cycle is dropped, to run again).")
    stopped: bool = Field(False, description="The session was stopped when its journal was taken: `retry` "
                                             "resumes it.")


class ReviewParams(CamelModel):
    """``council/review``: review one seed-004 ``CouncilRequest`` (its fields keep the seed's snake_case names)."""

    request: CouncilRequest
    provider: str | None = Field(None, max_length=100, description="Provider id for the roles (as a session's).")
    model: str | None = Field(None, max_length=300)
    client: ClientCapabilities = Field(default_factory=ClientCapabilities)
    timeout_seconds: float | None = Field(None, gt=0, le=3600, description="Give up (an internal error) after this.")


class ReviewPlanParams(CamelModel):
    """``council/reviewPlan``: what ``council/review`` would do for a change of this type."""

    change_type: ChangeType


class ReviewPlan(CamelModel):
    """The roles that would sit and the model calls they would make (what a confirmation prompt shows)."""

    change_type: ChangeType
    roles: list[str] = Field(description="The review roles that sit for this change type.")
    model_calls_min: int = Field(description="One verdict per role and the chair's reasoning (repairs not counted).")
    model_calls_max: int = Field(description="With the second round the roles hold when they disagree.")
    markdown: str = Field("", description="One line for a confirmation prompt: who, how many model calls.")


class ReviewResult(CamelModel):
    """The decision (seed-004 ``CouncilDecision`` with ``verdicts`` and ``audit``, snake_case) and its markdown."""

    decision: ReviewedDecision
    markdown: str = Field(description="The decision for people, blocking issues first; print it as is.")
    compact_markdown: str = Field(description="A few lines for an agent (outcome, blocking issues, reasoning, "
                                              "verdicts, axis scores, next steps): the MCP tool `council_review`'s "
                                              "text and VS Code's agent-tool result.")


@dataclass(frozen=True)
class Method:
    name: str
    params: type[CamelModel | SnakeModel]
    result: type[CamelModel | SnakeModel]
    handler: str  # the CouncilService method that serves it
    doc: str  # written as an indented paragraph; read as one line

    def __post_init__(self) -> None:
        object.__setattr__(self, "doc", " ".join(self.doc.split()))


METHODS: tuple[Method, ...] = (
    Method("council/turn", TurnParams, TurnResult, "turn", """
        Forward a chat turn. The sidecar decides what the text means (new problem, answer, skip, skip all, more
        questions, extend debate, stop, cancel, status, follow-up) and runs the session until it needs the user
        again. Events stream as `council/event` notifications meanwhile. `$/cancelRequest` on this request stops
        (pauses) the session like `council/stop` (during a follow-up it stops only the follow-up: the session stays
        completed); only `council/cancel` (or the `cancel` command) cancels it. A turn with the `retry` command
        resumes a stopped or stalled session from where it is. While a question is open, text that reads like a new
        problem is not recorded: the intent is `confirm_new` and a `question.confirmNew` event asks; send the text
        again with `command: "answer"` or `command: "new"`. `command: "answer"` with no open question is a
        validation error with `details.reason` `no_open_question`. After the council answered, plain text is a
        `follow_up` the moderator answers from the session (`followUp.*` events); `command: "extend"` with text
        re-opens the debate with it (`debate.reopened`)."""),
    Method("council/answer", AnswerParams, TurnResult, "answer", """
        Answer, skip or defer a question by id. A repeated `idempotencyKey` is a no-op that returns the first call's
        result (a double-clicked button never skips two questions)."""),
    Method("council/stop", SessionRef, StopResult, "stop", """
        Stop (pause) a session: every in-flight model call of it stops and the running `council/turn` returns
        promptly; completed debate cycles, answers and assumptions are kept, a cycle that had not concluded is
        dropped, and the session keeps its status with `stopped: true` (journaled, so `council/restore` keeps it). A
        `session.stopped` event says so. A turn with the `retry` command resumes it. Nothing running (e.g. a
        question is open): `stopped: false`, nothing changes."""),
    Method("council/cancel", SessionRef, CancelResult, "cancel", """
        Cancel a session: every in-flight model call of it stops; status becomes `cancelled` (final). On a completed
        session it stops a running follow-up (the session stays completed), and is refused otherwise."""),
    Method("council/snapshot", SnapshotParams, SnapshotResult, "snapshot", """
        The whole session (for transcripts and restore), its markdown transcript and optionally its journal."""),
    Method("council/restore", RestoreParams, RestoreResult, "restore", """
        Restore a session from its journal into this sidecar (after a restart). The journal is validated and
        replayed through the same reducer that wrote it; a cycle the old sidecar did not finish is dropped, so
        `retry` runs it again. No events are sent for the replayed past; the next event's seq is `lastSeq + 1`."""),
    Method("council/personas", EmptyParams, PersonasResult, "personas", "The persona contracts the sidecar loaded."),
    Method("council/providers", ProvidersParams, ProvidersResult, "providers", """
        Configured model providers and whether each answers right now (an agent CLI: whether it is signed in, or with
        `askClis` whether it answers a tiny prompt)."""),
    Method("council/consult", consult.ConsultRequest, consult.ConsultResult, "consult_request", """
        Consult the council in one call (seed 000's `council.consult`; MCP tool `council_consult`; payloads are
        snake_case). It runs a whole session — routing (or `selected_personas`), clarification, vote-first debate,
        convergence, synthesis — and answers when the council is done, with one ToolResponse per persona and the
        synthesis. Nobody is asked anything: each clarifying question becomes a logged assumption and is listed in
        `open_questions`. `depth` sets the output budget and is enforced (longer lists are cut, shortfalls are
        noted, nothing is invented). Events stream as `council/event` for the result's `session_id` meanwhile
        (propose it with `session_id`); with `client_model` the client serves the session's `council/complete`
        requests with its own model. `$/cancelRequest` cancels the session and every model call."""),
    Method("council/personaConsult", consult.PersonaConsultRequest, consult.ConsultResult, "consult_request", """
        Consult one persona (seed 000's `persona.consult`; MCP tool `persona_consult`): the same session and result
        shape with `persona_name` alone on the council and one cycle."""),
    Method("council/definePersonas", consult.DefinePersonasParams, consult.DefinePersonasResult, "define_personas", """
        Persona overrides for the workspace (seed 000's `council.define_personas`; MCP tool
        `council_define_personas`), draft-gated: without `confirm` it returns the merged contracts and a draft (id,
        the files it would write, a preview) and writes nothing; with `confirm: <draft id>` it writes exactly that
        draft to `<workspace>/.council/personas/` (only the overridden fields) and the next consult uses it.
        Applying a draft again changes nothing. Without `overrides` and `confirm` it lists the contracts. Needs
        `--workspace` to write (else `permission`)."""),
    Method("council/consultPlan", consult.ConsultPlanParams, consult.ConsultPlan, "consult_plan", """
        What `council/consult` (or, with `persona_name`, `council/personaConsult`) would do with these params,
        without a model call: the council and why, the cycle cap, and how many model calls (what a confirmation
        prompt shows)."""),
    Method("council/reviewPlan", ReviewPlanParams, ReviewPlan, "review_plan", """
        What `council/review` would do for a change of this `change_type`, without a model call: the roles that sit
        and how many model calls they make (what the `council_review` tool's confirmation shows)."""),
    Method("council/review", ReviewParams, ReviewResult, "review", """
        Review mode (seed 004; MCP tool `council_review`, VS Code's `@council /review`): the review roles that sit
        for the request's `change_type` judge it concurrently (one debate round when they disagree); the outcome
        follows the written rules, the chair's model writes only `summary_reasoning`. The request and the decision
        keep the seed's snake_case field names. Progress arrives as `progress` events with `sessionId`
        `review:<request_id>`. A review that cannot be done (a role's model failed, a timeout) is an `internal`
        error, never a verdict; `$/cancelRequest` cancels it."""),
)
