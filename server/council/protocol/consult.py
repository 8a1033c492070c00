"""The consult tools' wire models (seed 000), the same on every surface: JSON-RPC, the MCP server (also the decision
memory's ``council_decisions``) and VS Code's language model tools. They are snake_case, as seed 000 names them;
fields beyond the seed (votes, assumptions, the session id) say how the answer came about.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, StringConstraints, field_validator, model_validator
from pydantic_core import PydanticCustomError

from council.camel import SnakeModel
from council.memory.models import Decision
from council.protocol.constants import MAX_CHOICE, MAX_CONTEXT, MAX_TEXT
from council.protocol.seating import SEATING_DOC, ClientModel, SeatingPolicy
from council.session.state.budget import SPECULATE_DOC, Speculate
from council.session.state.entities import Depth

Item = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Level = Literal["low", "medium", "high"]
DRAFT_ID = r"^draft-[0-9a-f]{16}$"


def whole_number(value: object) -> object:
    """A budget as JSON writes an integer: a number with no fraction (``20``, also ``20.0``, which JSON Schema's
    ``integer`` admits), never a string, a boolean, a fraction, an infinity (``1e999``) or NaN."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "a boolean" if isinstance(value, bool) else "a string" if isinstance(value, str) else (
            "null" if value is None else f"a {type(value).__name__}")
        raise PydanticCustomError("whole_number", "Input should be a whole number such as 20, not {kind}",
                                  {"kind": kind})
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise PydanticCustomError("whole_number", "Input should be a whole number such as 20, not {number}",
                                      {"number": repr(value)})
        return int(value)
    return value


#: A session's or a consult's budget of model calls (``maxModelCalls``, ``max_model_calls``, ``--max-calls``): the one
#: rule of every surface.
ModelCallBudget = Annotated[int, Field(ge=3, le=1000), BeforeValidator(whole_number)]


class _Problem(SnakeModel):
    user_problem: str = Field(min_length=1, max_length=MAX_TEXT,
                              description="The problem or question for the council, in the user's words.")
    context: str | None = Field(None, max_length=MAX_CONTEXT,
                                description="Background the council should know: facts, code, documents.")
    desired_outcome: str | None = Field(None, max_length=2000, description="What a good answer lets the user do.")
    constraints: list[Item] = Field(default_factory=list, max_length=20,
                                    description="Limits the advice must respect (budget, deadline, stack …).")
    depth: Depth = Field(Depth.STANDARD, description="Output budget: brief = 2–3 bullets in each persona's "
                         "summary, advice and next_steps; standard = 5–7; deep = 10 or more.")
    max_model_calls: ModelCallBudget | None = Field(
        None, description="The most model calls the consult may make, retries included: the council plans fewer "
                          "cycles or personas to fit and says so (3 is the minimum: one persona, the options, the "
                          "answer).")
    speculate: Speculate | None = Field(None, description=SPECULATE_DOC)

    @field_validator("user_problem")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()


class ConsultParams(_Problem):
    """``council/consult``: ask the council (several personas: vote-first debate, then one synthesis)."""

    selected_personas: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]] \
        | None = Field(None, min_length=1, max_length=12,
                       description="Persona names or ids. Default: routing picks the council and says why.")


class PersonaConsultParams(_Problem):
    """``council/personaConsult``: ask one persona (its own reply, then the same synthesis shape)."""

    persona_name: str = Field(min_length=1, max_length=80, description="A persona's name or id.")


class _Request(SnakeModel):
    """What only a JSON-RPC client of the sidecar can add to a consult (not part of the tools' input)."""

    session_id: str | None = Field(None, min_length=8, max_length=100, pattern=r"^[A-Za-z0-9_.:-]+$",
                                   description="Give the consult's session this (unused) id, so the client can "
                                               "match its events and completions from the first one.")
    client_model: str | None = Field(None, min_length=1, max_length=300,
                                     description="The client lends its own model: it answers `council/complete` "
                                                 "for this session, as for a chat turn (this is the model's name).")
    client_models: list[ClientModel] | None = Field(None, max_length=50,
                                                    description="The models the client can serve (with "
                                                                "`client_model` the id of the chat's one among them): "
                                                                "the personas are seated on them.")
    seating: SeatingPolicy | None = Field(None, description=SEATING_DOC)


class ConsultRequest(ConsultParams, _Request):
    """``council/consult``: the tool's input (ConsultParams) plus what a JSON-RPC client may add."""


class PersonaConsultRequest(PersonaConsultParams, _Request):
    """``council/personaConsult``: the tool's input (PersonaConsultParams) plus what a JSON-RPC client may add."""


class ConsultPlanParams(ConsultParams):
    """``council/consultPlan``: the params of either consult; with ``persona_name``, the persona consult's."""

    persona_name: str | None = Field(None, min_length=1, max_length=80,
                                     description="Plan `council/personaConsult` for this persona instead.")
    client_model: str | None = Field(None, min_length=1, max_length=200,
                                     description="The client's model the consult will run on (as the consult's "
                                                 "`client_model`): the estimate counts the calls on it, e.g. none "
                                                 "started beside the options call on a metered model.")

    def consult_params(self) -> ConsultParams | PersonaConsultParams:
        data = self.model_dump(exclude_none=True)
        data.pop("client_model", None)
        name = data.pop("persona_name", None)
        if name is None:
            return ConsultParams.model_validate(data)
        data.pop("selected_personas", None)
        return PersonaConsultParams.model_validate({**data, "persona_name": name})


class ToolResponse(SnakeModel):
    """One persona's answer (seed 000's ToolResponse). ``summary`` and ``advice`` are markdown bullet lists."""

    persona: str
    summary: str = Field(description="Markdown bullets; as many as the depth asks for.")
    advice: str = Field(description="Markdown bullets; as many as the depth asks for. The Devil's Advocate's then "
                                    "ends with its counterpoints, one bullet each (`Counterpoint: …`, seed 000).")
    assumptions: list[str] = []
    questions: list[str] = []
    next_steps: list[str] = Field(default_factory=list, description="Ordered: first step first.")
    confidence: Level
    confidence_rationale: str
    position: str = Field(description="The persona's stance in one sentence.")
    counterpoints: list[str] = Field(default_factory=list,
                                     description="Risks and counterpoints it raised (always, for the Devil's "
                                                 "Advocate); they feed the synthesis's risks_tradeoffs.")
    vote: str | None = Field(None, description="The option it voted for in the final round (see vote.options).")
    cycle: int = Field(ge=0, description="The debate cycle this answer comes from (0: a council of one, which "
                                         "answers without a debate).")


class ConsultSynthesis(SnakeModel):
    """Seed 000's CouncilSynthesis, plus the recommendation and the dissent."""

    recommendation: str
    agreements: list[str] = []
    conflicts: list[str] = []
    risks_tradeoffs: list[str] = []
    next_steps: list[str] = Field(default_factory=list, description="Ordered and consolidated.")
    notes: list[str] = Field(default_factory=list, description="Nondeterminism, depth shortfalls, constraints.")
    dissent: list[str] = Field(default_factory=list, description="One entry per persona that voted against the "
                                                                 "winner in the final vote, with its reasons.")
    source: Literal["model", "consolidated"] = "model"


class CouncilChoice(SnakeModel):
    """Who sat on the council and why (routing's reason, or the caller's choice)."""

    personas: list[str]
    reason: str
    method: str = Field(description="override, embeddings, tfidf or keywords.")
    user_override: bool = False


class VoteOutcome(SnakeModel):
    options: dict[str, str] = Field(description="Option id → label.")
    counts: dict[str, int]
    winner: str | None = None
    consensus: Literal["unanimous", "majority", "tie", "none"]


class Clarification(SnakeModel):
    """A clarifying question the council had, and what became of it."""

    question: str
    choices: list[str] = []
    status: Literal["answered", "declined", "assumed"] = Field(
        description="answered (through the caller), declined by the user, or assumed (no way to ask).")
    answer: str | None = None
    assumption: str | None = Field(None, description="What the council assumed instead of an answer.")


class HingeAlternative(SnakeModel):
    """Another likely answer to a question the council asked, and the course it favours (the clarifier's plan)."""

    answer: str
    favours: str = Field(description="The course of action it favours, as the plan named it.")
    option_id: str | None = Field(None, description="The vote's option that course is (none: none of them).")


class Hinge(SnakeModel):
    """What the recommendation depends on (seed 002's Assumption): an answer the user gave or an assumption the
    council made whose alternatives favour another course (stated by the engine from the clarifier's plan), or an
    assumption the chair judged decisive."""

    assumption: str = Field(description="What the recommendation takes as given: the user's answer, or the "
                                        "council's assumption.")
    if_false: str = Field(description="What the council would recommend if it were otherwise.")
    criticality: Level
    question_id: str | None = Field(None, description="The question behind it; when it was skipped, a chat turn "
                                                      "with `command: \"revisit\"` and this `questionId` in the "
                                                      "consult's session asks it again.")
    question: str = Field("", description="That question's text.")
    basis: Literal["answered", "assumed"] = Field("assumed", description="answered: the user's answer; assumed: "
                                                                         "the council's assumption.")
    alternatives: list[HingeAlternative] = Field(default_factory=list, description=(
        "The other likely answers and the course each favours (empty: the chair's hinge alone)."))
    chair: str = Field("", description="The chair's words on what it would recommend instead ('' when none).")


class PositionMove(SnakeModel):
    """A persona whose final vote differs from its first vote, and the argument it named for the change."""

    persona: str
    from_option: str | None = Field(None, description="Its first vote (none: it was not placed).")
    to_option: str | None = Field(None, description="Its final vote.")
    cycle: int = Field(description="The debate cycle in which it last changed its vote.")
    because: str = Field("", description="The argument that moved it ('' when it named none).")
    conformity: bool = Field(False, description="Flagged as possible conformity: it changed without an argument.")


class DebateChange(SnakeModel):
    """What the debate changed: the first vote (cycle 1) against the final one."""

    verdict: Literal["no_debate", "unusable", "no_new_vote", "confirmed", "overturned"] = Field(
        description="no_debate: no debate cycle followed the first vote, so it is the final one; unusable: debate "
                    "cycles ran after it, but no advisor's reply in them could be used (they were dropped), so the "
                    "first vote is the final one; no_new_vote: "
                    "debate cycles followed but nobody voted on the options in them, so the first vote stands; "
                    "confirmed: the debate ended on the first vote's winner (or its tie stood); overturned: on "
                    "another winner, or on a tie after a winner.")
    since: Literal["first_vote", "revisit"] = Field(
        "first_vote", description="What the final vote is compared with: the first vote, or (after a revisited "
                                  "question was answered) the vote before that answer.")
    cycles_after: int = Field(0, ge=0, description="The debate cycles that ran after the vote compared with.")
    unusable_cycles: int = Field(0, ge=0, description="Debate cycles that ran after the final vote but were "
                                                     "dropped: no advisor's reply in them could be used.")
    first_winner: str | None = None
    final_winner: str | None = None
    first_counts: dict[str, int] = Field(default_factory=dict, description="Option id → first votes.")
    final_counts: dict[str, int] = Field(default_factory=dict, description="Option id → final votes.")
    moves: list[PositionMove] = []
    dropped: list[str] = Field(default_factory=list, description="Personas that voted in the earlier vote but cast "
                                                                "none in the final one (their replies could not be "
                                                                "used, or named no option).")
    returned: list[str] = Field(default_factory=list, description="Personas whose vote changed in a cycle between "
                                                                 "and came back to the earlier one.")
    conformity_flags: int = Field(0, ge=0, description="Debate replies flagged as possible conformity.")


class ElicitedAnswer(SnakeModel):
    """What a client returns when the user accepts a clarifying question asked through MCP elicitation: a choice,
    their own words, or both (the words win). Limited as ``council/answer`` is."""

    choice: str | None = Field(None, max_length=MAX_CHOICE)
    answer: str | None = Field(None, max_length=MAX_TEXT)


class ConsultResult(SnakeModel):
    """A finished consult: one ToolResponse per persona and the CouncilSynthesis (seed 000), plus how the
    council got there."""

    responses: list[ToolResponse]
    synthesis: ConsultSynthesis
    session_id: str = Field(description="`council/snapshot` gives its transcript while the sidecar keeps it.")
    depth: Depth
    council: CouncilChoice
    vote: VoteOutcome | None = None
    debate: DebateChange | None = Field(None, description="Whether the debate confirmed or overturned the first "
                                                          "vote, and who moved (none: no vote).")
    hinges: list[Hinge] = Field(default_factory=list, description="The assumptions the recommendation depends on, "
                                                                  "most critical first; each can be revisited.")
    clarifications: list[Clarification] = []
    assumptions: list[str] = Field(default_factory=list, description="Every assumption the council made.")
    open_questions: list[str] = Field(default_factory=list,
                                      description="Questions nobody answered: unanswered clarifications and the "
                                                  "personas' own questions.")
    cycles: int = Field(ge=0, description="Cycles run, the first vote's (cycle 1) included: the debate cycles are "
                                           "the ones after it.")
    model_calls: int = Field(ge=0, description="Model calls made, repairs included.")
    calls_by_model: dict[str, int] = Field(default_factory=dict, description="Model calls made per model (a client "
                                           "model's name, else `provider:model`).")
    cancelled_by_model: dict[str, int] = Field(default_factory=dict, description="Of `calls_by_model`, the calls "
                                               "sent and then cancelled, per model (not needed once the first vote "
                                               "settled it, or stopped): a metered model bills them.")
    max_model_calls: int = Field(0, ge=0, description="The most the consult said it would spend (retries "
                                                      "included); `model_calls` never exceeds it.")
    seats: dict[str, str] = Field(default_factory=dict, description="Persona → the model it spoke with.")
    markdown: str = Field("", description="The compact rendering a person (or an agent) reads, written by the "
                                          "sidecar; the structured fields have everything.")


class ConsultPlan(SnakeModel):
    """What a consult would do, without any model call (for a confirmation prompt)."""

    council: CouncilChoice
    depth: Depth
    max_cycles: int = Field(description="The most cycles it runs, the first vote's (cycle 1) included.")
    model_calls_min: int = Field(description="Clarifier, one reply per persona, options, synthesis.")
    model_calls_max: int = Field(description="Every cycle up to the cap (retries not counted).")
    max_model_calls: int = Field(0, description="The hard bound, retries included: repairs, fallbacks and a "
                                                "provider's own retries of a failed request (within "
                                                "`max_model_calls` of the params when given).")
    budget_cut: str | None = Field(None, description="What the budget cut to fit, in words (none: nothing).")
    markdown: str = Field("", description="One line for a confirmation prompt: who, depth, model calls, why.")


class PersonaOverride(SnakeModel):
    """The fields of one persona a workspace may override."""

    soul: str | None = Field(None, min_length=1, max_length=4000)
    focus: list[Item] | None = Field(None, min_length=1, max_length=12)
    constraints: list[Item] | None = Field(None, min_length=1, max_length=12)

    @model_validator(mode="after")
    def _something(self) -> PersonaOverride:
        if self.soul is None and self.focus is None and self.constraints is None:
            raise ValueError("give at least one of soul, focus, constraints")
        return self


class DefinePersonasParams(SnakeModel):
    """``council/definePersonas``: without ``confirm`` a draft; with ``confirm`` the draft is written."""

    overrides: dict[Annotated[str, StringConstraints(min_length=1, max_length=80)], PersonaOverride] | None = \
        Field(None, max_length=20, description="Persona name or id → the fields to override.")
    confirm: str | None = Field(None, pattern=DRAFT_ID,
                                description="The id of a draft to apply (from an earlier call).")


class PersonaContractInfo(SnakeModel):
    """Seed 000's PersonaContract as it stands (with the workspace's overrides merged)."""

    id: str
    name: str
    councils: list[str]
    soul: str
    focus: list[str]
    constraints: list[str]
    allowed_tools: list[str]
    source: str = Field(description="The file that last changed it.")


class DraftFile(SnakeModel):
    path: str
    persona: str
    action: Literal["create", "update", "unchanged"]
    content: str = Field(description="The whole file as it would be written (only the overridden fields, "
                                     "or the workspace's own file with them changed).")


class Draft(SnakeModel):
    """What ``confirm`` would write, and where."""

    id: str
    directory: str
    files: list[DraftFile]
    preview: str = Field(description="Markdown for a person: what would be written where.")


class DefinePersonasResult(SnakeModel):
    personas: list[PersonaContractInfo]
    draft: Draft | None = None
    applied: bool = False
    written: list[str] = Field(default_factory=list, description="Files written by this call.")
    unchanged: list[str] = Field(default_factory=list, description="Files that already held these overrides.")
    markdown: str = Field("", description="What a person reads: the draft's preview, or what was written.")


class DecisionsParams(SnakeModel):
    """Search the workspace's past council decisions: by ``query`` (most similar first), one by ``decision_id``, or
    the newest ones (neither)."""

    query: str | None = Field(None, min_length=1, max_length=2000, description="A question or topic to look for.")
    decision_id: str | None = Field(None, min_length=4, max_length=100,
                                    description="One decision's id (or a prefix of it that names exactly one).")
    limit: int = Field(5, ge=1, le=50, description="At most this many decisions.")


class DecisionsResult(SnakeModel):
    decisions: list[Decision]
    similarity: list[float] | None = Field(None, description="Each decision's similarity to `query` (searches).")
    method: str | None = Field(None, description="How similarity was judged: embeddings, tfidf or keywords.")
    markdown: str = ""
