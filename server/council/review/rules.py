"""The chair's written rules: the final outcome and the axis scores follow from the roles' verdicts, in code.

Outcome — the first rule that applies decides (``OutcomeRule`` names it in the audit):

1. ``blocking_issues``: any blocking issue → **REJECT**. Blocking issues are the issues a role lists as blocking,
   every failed checklist item its contract marks ``blocking``, and a REJECT that names no issue (its concerns
   stand in, or the bare fact that the role rejects).
2. ``missing_artifacts``: a seated role needs an artifact the request does not carry → **NEEDS_MORE_INFO**.
3. ``role_needs_more_info``: any role's verdict is NEEDS_MORE_INFO → **NEEDS_MORE_INFO**.
4. ``low_confidence``: an approval below :data:`APPROVAL_CONFIDENCE` → **NEEDS_MORE_INFO**.
5. ``all_approve``: otherwise every role approves → **APPROVE**.

A role that could not answer never gets here: a review without every seated role's verdict is not a review (the
caller reports it as an error, never as a verdict).

Axis scores — for each axis, the weighted mean of the roles' scores:
``score(axis) = Σ_r w(r, axis) · s(r, axis) / Σ_r w(r, axis)`` with ``w(r, axis) = confidence_score(r) ×
(PRIMARY_WEIGHT if the axis is one of r's contract axes else OTHER_WEIGHT)``, rounded to one decimal. When every
confidence on an axis is 0 the confidences are left out (weights 3 and 1). The weights used are kept in the audit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from council.review.models import AXES, AxisScores, OutcomeRule, RoleVerdict, Verdict

APPROVAL_CONFIDENCE = 0.5
PRIMARY_WEIGHT, OTHER_WEIGHT = 3.0, 1.0
MAX_NEXT_STEPS = 12

BlockerKind = Literal["stated", "checklist", "unexplained_reject"]


@dataclass(frozen=True)
class Blocker:
    """One blocking issue, as data: which role, what, and where it came from (a checklist item's question and
    answer, a stated issue, or a rejection without a stated issue)."""

    role: str
    kind: BlockerKind
    text: str
    answer: str = ""


def blockers_of(verdict: RoleVerdict, blocking_questions: Iterable[str]) -> list[Blocker]:
    """The blocking issues one role's verdict carries (see rule 1)."""
    found = [Blocker(verdict.role, "stated", issue) for issue in verdict.blocking_issues if issue.strip()]
    must_pass = set(blocking_questions)
    found += [Blocker(verdict.role, "checklist", item.question, item.answer)
              for item in verdict.checklist_results if item.question in must_pass and not item.passed]
    if verdict.verdict is Verdict.REJECT and not found:
        found = [Blocker(verdict.role, "stated", concern) for concern in verdict.concerns if concern.strip()]
        found = found or [Blocker(verdict.role, "unexplained_reject", "")]
    return found


def outcome(verdicts: list[RoleVerdict], blockers: list[Blocker],
            missing: dict[str, list[str]]) -> tuple[Verdict, OutcomeRule]:
    """The final outcome and the rule that decided it (rules 1–5, first match)."""
    if blockers:
        return Verdict.REJECT, "blocking_issues"
    if any(missing.values()):
        return Verdict.NEEDS_MORE_INFO, "missing_artifacts"
    if any(v.verdict is Verdict.NEEDS_MORE_INFO for v in verdicts):
        return Verdict.NEEDS_MORE_INFO, "role_needs_more_info"
    if any(v.verdict is Verdict.APPROVE and v.confidence_score < APPROVAL_CONFIDENCE for v in verdicts):
        return Verdict.NEEDS_MORE_INFO, "low_confidence"
    if verdicts and all(v.verdict is Verdict.APPROVE for v in verdicts):
        return Verdict.APPROVE, "all_approve"
    raise ValueError("no rule applies: a rejection always carries a blocking issue")  # pragma: no cover


def axis_weights(verdicts: list[RoleVerdict], primary: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """axis → role → weight, for the roles that scored (see the formula in the module docstring)."""
    scored = [v for v in verdicts if v.axis_scores is not None]
    weights: dict[str, dict[str, float]] = {}
    for axis in AXES:
        expertise = {v.role: PRIMARY_WEIGHT if axis in primary.get(v.role, ()) else OTHER_WEIGHT for v in scored}
        by_confidence = {v.role: round(v.confidence_score * expertise[v.role], 6) for v in scored}
        weights[axis] = by_confidence if sum(by_confidence.values()) > 0 else expertise
    return weights


def axis_scores(verdicts: list[RoleVerdict], weights: dict[str, dict[str, float]]) -> AxisScores:
    """Each axis's weighted mean of the roles' scores, to one decimal."""
    scores = {v.role: v.axis_scores for v in verdicts if v.axis_scores is not None}
    if not scores:
        raise ValueError("no role scored the axes")
    values = {}
    for axis in AXES:
        total = sum(weights[axis][role] for role in scores)
        mean = sum(weights[axis][role] * getattr(s, axis) for role, s in scores.items()) / total
        values[axis] = round(mean, 1)
    return AxisScores(**values)


def next_steps(verdicts: list[RoleVerdict], blockers: list[Blocker]) -> list[str]:
    """The roles' required actions, roles with blocking issues first, each action once (case-insensitive)."""
    blocking_roles = {b.role for b in blockers}
    ordered = sorted(verdicts, key=lambda v: v.role not in blocking_roles)  # stable: panel order otherwise
    seen: set[str] = set()
    steps: list[str] = []
    for v in ordered:
        for action in v.required_actions:
            key = " ".join(action.lower().split())
            if key and key not in seen:
                seen.add(key)
                steps.append(action.strip())
    return steps[:MAX_NEXT_STEPS]
