"""What the models are asked to produce (JSON schemas) and the parsed results the session keeps.

``*Reply`` classes are model-facing: their JSON schema is sent with the prompt (snake_case, bounded lengths and
item counts) and parsing ignores unknown keys. The other classes are what the session stores and the wire carries.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from council.camel import CamelModel

FailureKind = Literal["key_rejected", "model_not_found", "rate_limited", "overloaded", "server_error", "timeout",
                      "unreachable", "malformed", "refused", "client_model", "not_configured", "crashed",
                      "model_unavailable", "no_consent", "over_budget"]
TEXT = 600  # max characters of one bullet or sentence a model may write
# The engine's fixed notes on a reply, in English for the logs and the session's data; what a person reads says them
# from the catalog (present.persona.note_words, present.consult.could_not_answer).
REPAIRED_NOTE = "repaired after one retry"
CUT_OFF_NOTE = "the reply was cut off; kept its complete parts"
UNUSABLE_NOTE = "unusable reply after one repair attempt: "  # followed by what was wrong with it
Ambiguity = Literal["scope", "timeline", "priority", "constraints", "budget", "audience", "risk", "context", "goal"]
Level = Literal["low", "medium", "high"]


class ModelFailure(CamelModel):
    """A failed model call: what kind of failure, where, and the technical cause."""

    kind: FailureKind
    provider: str = ""
    model: str = ""
    status: int | None = None
    host: str | None = None
    retryable: bool = False
    detail: str = ""


class ModelReply(CamelModel):
    """Lenient parsing of model output: unknown keys are dropped, not refused."""

    model_config = ConfigDict(extra="ignore")


CANDIDATE_IDS = ("A", "B", "C", "D")
NO_LEAN = "none"


class PlannedChoice(ModelReply):
    """One likely answer to a planned question, and which candidate course of action it would favour."""

    answer: str = Field(min_length=1, max_length=120)
    favours: str = Field(max_length=200, description="The letter of the candidate this answer favours, or none.")

    @field_validator("favours", mode="before")
    @classmethod
    def _null_is_none(cls, value: Any) -> Any:
        """``null`` (a model not held to the enum) says what ``none`` says: no lean."""
        return NO_LEAN if value is None else value


class PlannedQuestion(ModelReply):
    """A question the clarifier plans; its question and default assumption are read without surrounding white space
    (a blank one is no question or no assumption: the plan is repaired, as when it is empty)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    question: str = Field(min_length=5, max_length=300)
    target_ambiguity: Ambiguity
    choices: list[PlannedChoice] = Field(default_factory=list, max_length=5)
    default_assumption: str = Field(min_length=3, max_length=300)


class ClarifierReply(ModelReply):
    """The clarifier's plan. No ``reason``: nothing reads it, and a small model under a grammar wrote it up to its
    cap in every call (~40 tokens); a reply that still sends one has it dropped as an unknown key."""

    needs_clarification: bool
    candidates: list[str] = Field(default_factory=list, max_length=4,
                                  description="The courses of action the council will likely weigh (A, B, C, D).")
    questions: list[PlannedQuestion] = Field(default_factory=list, max_length=3)

    @field_validator("candidates", "questions", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        """``null`` for a list (a model not held to the schema: "no questions") is the empty list."""
        return [] if value is None else value


class EvidenceRequest(ModelReply):
    """One look at the user's workspace a persona asks for (served before the next cycle, for every persona)."""

    tool: str = Field(max_length=20, description="read_file, search_code or list_files (the schema's enum).")
    query: str = Field(min_length=1, max_length=300)
    regex: bool = False


class PersonaReply(ModelReply):
    """The seed-000 per-persona response plus the debate fields (and, with a workspace, evidence requests)."""

    position: str = Field(min_length=3, max_length=TEXT, description="Your stance in one sentence.")
    summary: list[str] = Field(default_factory=list, max_length=14)
    advice: list[str] = Field(default_factory=list, max_length=14)
    risks: list[str] = Field(default_factory=list, max_length=8)
    assumptions: list[str] = Field(default_factory=list, max_length=6)
    questions: list[str] = Field(default_factory=list, max_length=4)
    next_steps: list[str] = Field(default_factory=list, max_length=14)
    confidence: Level
    confidence_rationale: str = Field(min_length=3, max_length=TEXT)
    changed_position: bool = False
    change_reason: str = Field("", max_length=TEXT)
    option_id: str = Field("", max_length=160, description="The option voted for: its id (what a model wrote — an "
                                                            "id, `Option A`, a label — is mapped to the id).")
    backs: str = Field("", max_length=8, description="In the cycle beside the options call, whose recommendation the "
                                                    "persona backs: own, or a peer's letter (its vote is that one's).")
    vote_confidence: float = 0.5
    continue_debate: bool = True
    evidence_requests: list[EvidenceRequest] = Field(default_factory=list, max_length=10)


class PersonaResponse(PersonaReply):
    """A persona's contribution in one cycle, as the session keeps it."""

    model_config = ConfigDict(extra="forbid")

    persona: str
    cycle: int
    advice: list[str] = Field(default_factory=list, max_length=14 + 8, description=(
        "Its advice; the Devil's Advocate's ends with its counterpoints, one item each (seed 000)."))
    counterpoints: list[str] = Field(default_factory=list, max_length=8, description=(
        "The Devil's Advocate's counterpoints (its risks, each once) that end its `advice`; empty for the others."))
    abstained: bool = False
    note: str | None = None
    failure: ModelFailure | None = Field(None, description="Why the persona's model call failed (it abstained).")
    model: str = Field("", description="The model it spoke with (a client model's name, else `provider:model`).")
    conformity_flag: bool = False
    turn_id: str | None = None

    @property
    def own_advice(self) -> list[str]:
        """Its advice without the counterpoints that end it (the depth's bullet count is this advice's)."""
        return self.advice[: max(0, len(self.advice) - len(self.counterpoints))]


class OptionDraft(ModelReply):
    label: str = Field(min_length=2, max_length=120)
    description: str = Field(min_length=2, max_length=TEXT)
    supporters: list[int] = Field(default_factory=list, max_length=26)  # numbers of the advisors recommending it


class OptionsReply(ModelReply):
    options: list[OptionDraft] = Field(min_length=2, max_length=4)


class OptionChoice(ModelReply):
    """An advisor the moderator could not place says which option is its own (the schema makes ``option_id`` an enum
    of the option letters)."""

    option_id: str = Field(min_length=1, max_length=120, description="The letter of the option that is yours.")


class HingeDraft(ModelReply):
    """The chair's judgement of one numbered assumption: would the recommendation change if it were false?"""

    assumption: int = Field(description="The assumption's number in the list the chair was shown.")
    recommendation_depends: bool
    criticality: Level
    if_false: str = Field("", max_length=300, description="What the council would recommend instead.")


class SynthesisReply(ModelReply):
    recommendation: str = Field(min_length=3, max_length=1200)
    agreements: list[str] = Field(default_factory=list, max_length=8)
    conflicts: list[str] = Field(default_factory=list, max_length=8)
    risks_tradeoffs: list[str] = Field(default_factory=list, max_length=10)
    next_steps: list[str] = Field(min_length=1, max_length=14)
    notes: list[str] = Field(default_factory=list, max_length=6)
    hinges: list[HingeDraft] = Field(default_factory=list, max_length=12)


class FollowUpReply(ModelReply):
    """The moderator's answer to a question about a finished debate."""

    answer: str = Field(min_length=3, max_length=3000, description="Your answer, in a few short paragraphs.")


class VoteOption(CamelModel):
    id: str
    label: str
    description: str


class Vote(CamelModel):
    persona: str
    option_id: str
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str
    continue_debate: bool = False
    conclusion: str = ""
    cycle: int = 0


Consensus = Literal["unanimous", "majority", "tie", "none"]


class VoteTally(CamelModel):
    options: list[VoteOption]
    counts: dict[str, int]
    weights: dict[str, float]
    winner: str | None = None
    consensus: Consensus
    voters: int
    abstentions: list[str] = []


class HingeAlternative(CamelModel):
    """A likely answer to a planned question other than the one the council went on, and the course of action the
    clarifier's plan says it favours."""

    answer: str = Field(description="The likely answer (one of the question's choices).")
    favours: str = Field(description="The course of action it favours, as the plan named it.")
    option_id: str | None = Field(None, description="The vote's option that course is (None: none of them).")


class Hinge(CamelModel):
    """What the recommendation rests on: an answer the user gave or an assumption the council made, and what the
    council would recommend otherwise. The engine states it from the clarifier's plan whenever another likely answer
    to the question favours another course (``alternatives``); the chair's judgement refines it (``chair``,
    ``criticality``) and adds the assumptions no planned question covers."""

    assumption_id: str = Field("", description="The assumption's id ('' for an answer the user gave).")
    assumption: str = Field(description="What the recommendation takes as given: the user's answer, or the "
                                        "council's assumption.")
    question_id: str | None = Field(None, description="The question behind it (a skipped one can be revisited with "
                                                      "the `revisit` command), if there is one.")
    question: str = Field("", description="That question's text ('' when there is none).")
    basis: Literal["answered", "assumed"] = Field("assumed", description="answered: the user's answer; assumed: "
                                                                         "the council's assumption.")
    criticality: Level
    if_false: str = Field(description="What the council would recommend if it were otherwise (the chair's words "
                                      "when it gave them, else the course the plan says the alternatives favour).")
    alternatives: list[HingeAlternative] = Field(default_factory=list, description=(
        "The other likely answers that favour another course, from the clarifier's plan (empty: the chair's hinge "
        "alone)."))
    chair: str = Field("", description="The chair's own words on what it would recommend instead ('' when none).")


class UserAnswer(CamelModel):
    """A clarifying question the user answered: what they told the council."""

    question_id: str
    question: str
    answer: str


class PositionMove(CamelModel):
    """A persona whose vote after the debate differs from its first vote, and the argument that moved it."""

    persona: str
    from_option: str | None = Field(None, description="Its first vote (None: it was not placed in the first vote).")
    to_option: str | None = Field(None, description="Its final vote (None: it did not vote in the final round).")
    cycle: int = Field(description="The cycle in which it last changed its vote.")
    because: str = Field("", description="The argument it named for the change ('' when it named none).")
    conformity: bool = Field(False, description="The change was flagged as possible conformity (no argument).")


class DebateEffect(CamelModel):
    """What the debate changed: the first vote (cycle 1) against the final vote; after a revisit, the vote the
    answer rested on before the user's new answer against the re-vote (``since``)."""

    verdict: Literal["no_debate", "unusable", "no_new_vote", "confirmed", "overturned"] = Field(
        description="no_debate: no cycle followed the first vote (or the revisit), so it is the final one; "
                    "unusable: cycles ran after it, but no advisor's reply in them could be used (they were "
                    "dropped), so it is the final one; "
                    "no_new_vote: cycles followed but nobody voted on the options in them, so the earlier vote "
                    "stands; confirmed: the debate ended on the earlier vote's winner (or its tie stood); "
                    "overturned: on another winner, or on a tie after a winner.")
    since: Literal["first_vote", "revisit"] = Field(
        "first_vote", description="What the final vote is compared with: the first vote, or (after a revisited "
                                  "question was answered) the vote before that answer.")
    cycles_after: int = Field(0, ge=0, description="The debate cycles that ran after the vote compared with.")
    unusable_cycles: int = Field(0, ge=0, description="Cycles that ran after the final vote but were dropped: no "
                                                     "advisor's reply in them could be used.")
    first_winner: str | None = None
    final_winner: str | None = None
    first_counts: dict[str, int] = Field({}, description="Option id → first votes.")
    final_counts: dict[str, int] = Field({}, description="Option id → final votes.")
    moves: list[PositionMove] = Field(default_factory=list, description="Personas whose vote moved, in council "
                                                                       "order.")
    dropped: list[str] = Field(default_factory=list, description="Personas that voted in the earlier vote but cast "
                                                                "none in the final one, in council order.")
    returned: list[str] = Field(default_factory=list, description="Personas whose vote changed in a cycle between "
                                                                 "and came back to the earlier one, in council order.")
    conformity_flags: int = Field(0, ge=0, description="Debate replies flagged as possible conformity.")


class CouncilSynthesis(CamelModel):
    """Seed-000 CouncilSynthesis plus the recommendation, dissent, what the user told the council and what it
    assumed (and those the recommendation hinges on, most critical first) and what the debate changed."""

    recommendation: str
    agreements: list[str] = []
    conflicts: list[str] = []
    risks_tradeoffs: list[str] = []
    next_steps: list[str] = []
    notes: list[str] = []
    dissent: list[str] = Field(default_factory=list, description="One entry per persona that voted against the "
                                                                 "winner in the final vote, with its reasons.")
    assumptions: list[str] = []
    user_answers: list[UserAnswer] = Field(default_factory=list, description="What the user told the council: each "
                                                                             "question it answered, and the answer.")
    source: Literal["model", "consolidated"] = "model"
    hinges: list[Hinge] = Field(default_factory=list, description="The answers and assumptions the recommendation "
                                                                  "depends on, most critical first.")
    debate: DebateEffect | None = Field(None, description="The first vote against the final one (None: no vote).")


def _tidy(node: Any) -> None:
    """Drop per-property titles, descriptions and defaults: tokens a small model copies instead of answering."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            for spec in props.values():
                for key in ("title", "description", "default"):
                    spec.pop(key, None)
            node["required"] = list(props)
        for value in node.values():
            _tidy(value)
    elif isinstance(node, list):
        for value in node:
            _tidy(value)


@functools.cache
def _base_schema(model: type[ModelReply]) -> str:
    """The model's JSON schema, generated and tidied once (callers get a fresh copy to patch)."""
    schema = model.model_json_schema(by_alias=False)
    _tidy(schema)
    schema.pop("description", None)
    return json.dumps(schema)


def reply_schema(model: type[ModelReply], overrides: dict[str, dict[str, Any]] | None = None,
                 omit: tuple[str, ...] = ()) -> dict[str, Any]:
    """The JSON schema sent to a model for ``model`` (snake_case): every listed field required (a grammar would
    otherwise let a model skip them all), ``omit`` fields left out, per-field constraint overrides applied. The
    top-level ``title`` names the reply kind (``PersonaReply`` …)."""
    schema = json.loads(_base_schema(model))
    for name in omit:
        schema["properties"].pop(name, None)
    if omit:
        schema["required"] = list(schema["properties"])
    for name, patch in (overrides or {}).items():
        schema["properties"][name].update(patch)
    return schema
