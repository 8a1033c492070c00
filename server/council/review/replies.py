"""What the review's models are asked to write (model-facing, lenient parsing) and how a role's reply becomes a
seed ``RoleVerdict``.

A role answers its contract's checklist in order, lists concerns, blocking issues and required actions, scores the
six axes (``score_<axis>``, flat keys a small model fills reliably) and gives its verdict last, after the evidence.
The chair writes only ``summary_reasoning``. Checks: the checklist must have exactly one answer per item (hard:
one repair, then the call fails); a verdict that contradicts the role's own findings gets one repair request and
is then kept as given (the chair's rules read the findings, not the label).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from council.personas.contract import ReviewRole
from council.review.models import AXES, AxisScores, ChecklistResult, RoleVerdict, Score, Verdict
from council.session.calls.parsing import ParseFailure
from council.session.state.outputs import ModelReply, reply_schema

ITEM = 400


class ChecklistAnswer(ModelReply):
    answer: str = Field(min_length=1, max_length=ITEM)
    passed: bool


class RoleReply(ModelReply):
    checklist: list[ChecklistAnswer] = Field(min_length=1, max_length=10)
    concerns: list[str] = Field(default_factory=list, max_length=6)
    blocking_issues: list[str] = Field(default_factory=list, max_length=4)
    required_actions: list[str] = Field(default_factory=list, max_length=6)
    score_assumptions: Score
    score_applicability: Score
    score_code_correctness: Score
    score_realistic_newness: Score
    score_overfitting: Score
    score_implications: Score
    verdict: Literal["APPROVE", "REJECT", "NEEDS_MORE_INFO"]
    confidence_score: float = Field(ge=0, le=1)


class ChairReply(ModelReply):
    summary_reasoning: str = Field(min_length=20, max_length=1200)


def role_schema(role: ReviewRole) -> dict[str, Any]:
    """The RoleReply schema for one role: exactly one checklist answer per item, bounded items."""
    n = len(role.checklist)
    overrides: dict[str, dict[str, Any]] = {"checklist": {"minItems": n, "maxItems": n},
                                            "confidence_score": {"minimum": 0, "maximum": 1}}
    for key in ("concerns", "blocking_issues", "required_actions"):
        overrides[key] = {"items": {"type": "string", "maxLength": ITEM}}
    for axis in AXES:
        overrides[f"score_{axis}"] = {"minimum": 0, "maximum": 10}
    return reply_schema(RoleReply, overrides)


def chair_schema() -> dict[str, Any]:
    return reply_schema(ChairReply, {"summary_reasoning": {"minLength": 20, "maxLength": 1200}})


def check_reply(role: ReviewRole) -> Callable[[RoleReply], None]:
    def check(reply: RoleReply) -> None:
        if len(reply.checklist) != len(role.checklist):
            raise ParseFailure(f"checklist must have exactly {len(role.checklist)} answers, one per item in order "
                               f"(got {len(reply.checklist)})")
    return check


def soft_check(role: ReviewRole) -> Callable[[RoleReply], str | None]:
    """A verdict that contradicts the reply's own findings (worth one repair request)."""

    def check(reply: RoleReply) -> str | None:
        failed = [i + 1 for i, (item, answer) in enumerate(zip(role.checklist, reply.checklist, strict=False))
                  if item.blocking and not answer.passed]
        if reply.verdict == "APPROVE" and reply.blocking_issues:
            return "an APPROVE cannot list blocking_issues: move them to concerns, or REJECT"
        if reply.verdict == "APPROVE" and failed:
            return (f"checklist item(s) {', '.join(map(str, failed))} failed and must pass for approval: "
                    "REJECT with the blocking issue, or correct the answer")
        if reply.verdict == "REJECT" and not reply.blocking_issues:
            return "a REJECT must name its blocking_issues"
        return None
    return check


def to_verdict(name: str, role: ReviewRole, reply: RoleReply) -> RoleVerdict:
    """The seed's RoleVerdict for a parsed reply: checklist questions from the contract, answers from the role."""
    results = [ChecklistResult(question=item.question, answer=answer.answer.strip() or "-", passed=answer.passed)
               for item, answer in zip(role.checklist, reply.checklist, strict=True)]
    scores = AxisScores(**{axis: getattr(reply, f"score_{axis}") for axis in AXES})
    return RoleVerdict(role=name, verdict=Verdict(reply.verdict), confidence_score=reply.confidence_score,
                       checklist_results=results, concerns=_clean(reply.concerns),
                       required_actions=_clean(reply.required_actions),
                       blocking_issues=_clean(reply.blocking_issues), axis_scores=scores)


def _clean(items: list[str]) -> list[str]:
    return [" ".join(item.split()) for item in items if item.strip()]
