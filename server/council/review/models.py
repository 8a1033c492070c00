"""Seed 004's review objects as validated models: ``CouncilRequest`` in, one ``RoleVerdict`` per role, one
``CouncilDecision`` out; names, enums and bounds are the seed's (snake_case on every surface: README, "Review mode").

``context`` and ``artifacts`` tolerate extra keys (extra artifacts must be strings; the roles see them like the named
ones). Additions to the seed, all optional for a reader: ``RoleVerdict.blocking_issues`` and ``axis_scores`` (what
the chair's rules and formula read), ``CouncilDecision.notes``, and the inbox file's ``verdicts`` and ``audit``
(:class:`ReviewedDecision`).
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

MAX_ARTIFACT_CHARS = 4_000_000  # one artifact; the prompt budget is far smaller (see review.prompts)
MAX_ITEMS = 50  # list fields of verdicts and decisions
ITEM_CHARS = 2_000  # one concern, action, issue or answer
REQUEST_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"  # it names the outbox file: no slashes, no leading dot


class ChangeType(str, Enum):
    """What the proposer asks the council to accept."""

    DECLARE_PASS = "DECLARE_PASS"
    FREEZE_SPEC = "FREEZE_SPEC"
    UPDATE_CONFIG = "UPDATE_CONFIG"
    CODE_REFACTOR = "CODE_REFACTOR"


class Verdict(str, Enum):
    """A role's verdict, and the council's final outcome."""

    APPROVE = "APPROVE"
    REJECT = "REJECT"
    NEEDS_MORE_INFO = "NEEDS_MORE_INFO"


Axis = Literal["assumptions", "applicability", "code_correctness", "realistic_newness", "overfitting",
               "implications"]
AXES: tuple[str, ...] = Axis.__args__  # type: ignore[attr-defined]
ArtifactName = Literal["spec_content", "diff_content", "validation_report", "monte_carlo_stats"]
ARTIFACTS: tuple[str, ...] = ArtifactName.__args__  # type: ignore[attr-defined]

Text = Annotated[str, StringConstraints(max_length=ITEM_CHARS)]
Path = Annotated[str, StringConstraints(min_length=1, max_length=1_000)]
Score = Annotated[float, Field(ge=0, le=10)]  # an axis score, 10 the best


class SeedModel(BaseModel):
    """The seed's objects: snake_case names, unknown fields refused (``pass`` is spelled ``pass`` on the wire)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


class RequestContext(SeedModel):
    """What the proposer says about the change. Extra keys are kept and shown to the roles."""

    model_config = ConfigDict(extra="allow")

    summary: str = Field(min_length=1, max_length=20_000)
    files_changed: list[Path] = Field(default_factory=list, max_length=10_000)
    key_metrics: dict[str, float] = Field(default_factory=dict, max_length=200)


class Artifacts(SeedModel):
    """The evidence. Any may be missing; a role that needs a missing one makes the outcome NEEDS_MORE_INFO."""

    model_config = ConfigDict(extra="allow")

    spec_content: str | None = Field(None, max_length=MAX_ARTIFACT_CHARS)
    diff_content: str | None = Field(None, max_length=MAX_ARTIFACT_CHARS)
    validation_report: str | None = Field(None, max_length=MAX_ARTIFACT_CHARS)
    monte_carlo_stats: str | None = Field(None, max_length=MAX_ARTIFACT_CHARS)

    @model_validator(mode="after")
    def _extras_are_text(self) -> Artifacts:
        for name, value in (self.model_extra or {}).items():
            if value is not None and not isinstance(value, str):
                raise ValueError(f"artifact {name!r} must be a string (markdown, a diff, or JSON as a string)")
            if isinstance(value, str) and len(value) > MAX_ARTIFACT_CHARS:
                raise ValueError(f"artifact {name!r} is longer than {MAX_ARTIFACT_CHARS} characters")
        return self

    def provided(self) -> dict[str, str]:
        """Every artifact with content, named ones first (a blank string counts as missing)."""
        values = {name: getattr(self, name) for name in ARTIFACTS}
        values.update(self.model_extra or {})
        return {name: value for name, value in values.items() if isinstance(value, str) and value.strip()}


class CouncilRequest(SeedModel):
    """Seed 004 §1: the proposal a research agent submits."""

    request_id: str = Field(pattern=REQUEST_ID_PATTERN)
    timestamp: datetime
    proposer: str = Field(min_length=1, max_length=200)
    change_type: ChangeType
    context: RequestContext
    artifacts: Artifacts = Field(default_factory=Artifacts)


class ChecklistResult(SeedModel):
    question: str = Field(min_length=1, max_length=500)
    answer: str = Field(min_length=1, max_length=ITEM_CHARS)
    passed: bool = Field(alias="pass")


class AxisScores(SeedModel):
    """Six axes on 0–10, 10 the best (``overfitting`` 10 = no sign of overfitting)."""

    assumptions: Score
    applicability: Score
    code_correctness: Score
    realistic_newness: Score
    overfitting: Score
    implications: Score


class RoleVerdict(SeedModel):
    """Seed 004 §2: one role's answer (plus the issues it calls blocking and its axis scores)."""

    role: str = Field(min_length=1, max_length=80)
    verdict: Verdict
    confidence_score: float = Field(ge=0, le=1)
    checklist_results: list[ChecklistResult] = Field(default_factory=list, max_length=MAX_ITEMS)
    concerns: list[Text] = Field(default_factory=list, max_length=MAX_ITEMS)
    required_actions: list[Text] = Field(default_factory=list, max_length=MAX_ITEMS)
    blocking_issues: list[Text] = Field(default_factory=list, max_length=MAX_ITEMS)
    axis_scores: AxisScores | None = None


class CouncilDecision(SeedModel):
    """Seed 004 §3: the chair's decision (plus ``notes``)."""

    request_id: str = Field(pattern=REQUEST_ID_PATTERN)
    final_outcome: Verdict
    axis_scores: AxisScores
    summary_reasoning: str = Field(min_length=1, max_length=4_000)
    blocking_issues: list[Text] = Field(default_factory=list, max_length=MAX_ITEMS)
    next_steps: list[Text] = Field(default_factory=list, max_length=MAX_ITEMS)
    notes: list[Text] = Field(default_factory=list, max_length=MAX_ITEMS)


OutcomeRule = Literal["blocking_issues", "missing_artifacts", "role_needs_more_info", "low_confidence",
                      "all_approve"]


class Seat(SeedModel):
    """A role on the panel, why it sits for this change type, and the artifacts it needs."""

    role: str
    reason: str
    needs: list[str] = []


class Truncation(SeedModel):
    artifact: str
    original_chars: int = Field(ge=0)
    kept_chars: int = Field(ge=0)


class DebateAudit(SeedModel):
    held: bool
    first_round: dict[str, Verdict] = {}
    changed: list[str] = Field(default_factory=list, description="Roles whose verdict changed in the debate.")
    kept_first: list[str] = Field(default_factory=list,
                                  description="Roles whose debate reply failed: their first verdict stands.")


class ReviewAudit(SeedModel):
    """How the decision was reached, as data: enough to recompute the outcome and every axis score."""

    change_type: ChangeType
    panel: list[Seat]
    rule: OutcomeRule
    missing_artifacts: dict[str, list[str]] = {}
    debate: DebateAudit
    axis_weights: dict[str, dict[str, float]] = Field(
        description="axis → role → weight: each axis score is Σ weight·score / Σ weight over the roles.")
    truncated: list[Truncation] = []
    chair: Literal["model", "rules"] = Field(description="Who wrote summary_reasoning: the chair's model, or the "
                                                         "rules' own wording when the chair's model failed.")
    models: dict[str, str] = Field(default_factory=dict, description="role → provider:model")
    request_sha256: str | None = None


class ReviewedDecision(CouncilDecision):
    """What a review produces (the inbox's ``<request_id>.decision.json``): the decision, every role's verdict,
    and the audit."""

    verdicts: list[RoleVerdict]
    audit: ReviewAudit
