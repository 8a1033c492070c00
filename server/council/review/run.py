"""Conducting one review: seat the panel, run the roles (and one debate round if they disagree), apply the rules,
ask the chair for the reasoning, assemble the decision with its audit.

The texts a decision carries beyond the models' own come from the injected :class:`ReviewWriter`
(``council.present.review_words``). A role that fails in the first round fails the review (:class:`ReviewFailed`),
never a verdict; one that fails in the debate round keeps its first verdict, and the notes say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from council.errors import CouncilError, ErrorCode
from council.personas.loader import PersonaLibrary
from council.review import models as m
from council.review import rules
from council.review.calls import CHAIR, Progress, ReviewObserver, ReviewSettings, chair_summary, run_round
from council.review.panel import SeatedRole, missing_artifacts, seat_panel
from council.review.prompts import Brief, request_brief
from council.session.calls.structured import ProviderPicker
from council.session.state.runtime import Turn


@dataclass(frozen=True)
class DecisionFacts:
    """What the writer words: the outcome, why, and what a reader of the decision should know."""

    request: m.CouncilRequest
    outcome: m.Verdict
    rule: m.OutcomeRule
    verdicts: list[m.RoleVerdict]
    blockers: list[rules.Blocker]
    missing: dict[str, list[str]]
    truncated: list[m.Truncation]
    debate: m.DebateAudit
    role_notes: dict[str, str] = field(default_factory=dict)
    chair_note: str | None = None
    chair_failed: bool = False


class ReviewWriter(Protocol):
    """Writes the texts of a decision that no model wrote (``council.present.review_words.ReviewWords``)."""

    def blocking_issue(self, blocker: rules.Blocker) -> str: ...

    def missing_step(self, artifact: str, roles: list[str]) -> str: ...

    def notes(self, facts: DecisionFacts) -> list[str]: ...

    def fallback_summary(self, facts: DecisionFacts) -> str: ...


def review_session_id(request_id: str) -> str:
    """The session id a review's model calls carry (``council mcp`` routes them to the client by it)."""
    return f"review:{request_id}"


class ReviewFailed(CouncilError):
    """The review could not be done (a role's model failed, a timeout): an error, never a verdict."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(ErrorCode.INTERNAL, message, **details)


async def _debate(rt: Turn, pick: ProviderPicker, panel: list[SeatedRole], brief: Brief,
                  missing: dict[str, list[str]], settings: ReviewSettings, first: dict[str, m.RoleVerdict],
                  notes: dict[str, str]) -> tuple[dict[str, m.RoleVerdict], m.DebateAudit]:
    rt.note("debate", verdicts={name: v.verdict.value for name, v in first.items()})
    second = await run_round(rt, pick, panel, brief, missing, settings, 2, first)
    final: dict[str, m.RoleVerdict] = {}
    kept_first = []
    for name, run in second.items():
        if run.verdict is None:
            kept_first.append(name)
            final[name] = first[name]
        else:
            final[name] = run.verdict
            if run.note:
                notes[name] = run.note
    changed = [name for name in final if final[name].verdict is not first[name].verdict]
    return final, m.DebateAudit(held=True, first_round={n: v.verdict for n, v in first.items()}, changed=changed,
                                kept_first=kept_first)


async def conduct(request: m.CouncilRequest, library: PersonaLibrary, pick: ProviderPicker, writer: ReviewWriter, *,
                  settings: ReviewSettings, progress: Progress,
                  request_sha256: str | None = None) -> m.ReviewedDecision:
    """Review ``request``; raises :class:`ReviewFailed` when it cannot be done. Cancellation propagates."""
    panel = seat_panel(library, request.change_type)
    missing = missing_artifacts(panel, request.artifacts)
    brief = request_brief(request, settings.artifact_budget)
    progress("panel", {"change_type": request.change_type.value, "seats": [s.seat() for s in panel],
                       "missing": missing})
    observer = ReviewObserver(progress)
    rt = Turn(review_session_id(request.request_id), observer)
    first_runs = await run_round(rt, pick, panel, brief, missing, settings, 1)
    failed = {name: run for name, run in first_runs.items() if run.verdict is None}
    if failed:
        roles = {name: observer.problems.get(name) or run.note or "no usable reply" for name, run in failed.items()}
        listed = "; ".join(f"{name}: {why}" for name, why in roles.items())
        raise ReviewFailed(f"could not review: no verdict from {listed}", reason="roles_failed", roles=roles)
    first = {name: run.verdict for name, run in first_runs.items() if run.verdict is not None}
    notes = {name: run.note for name, run in first_runs.items() if run.note}
    final, debate = first, m.DebateAudit(held=False)
    if settings.debate and len({v.verdict for v in first.values()}) > 1:
        final, debate = await _debate(rt, pick, panel, brief, missing, settings, first, notes)
    verdicts = [final[s.name] for s in panel]

    blockers = [b for s, v in zip(panel, verdicts, strict=True)
                for b in rules.blockers_of(v, [i.question for i in s.role.checklist if i.blocking])]
    final_outcome, rule = rules.outcome(verdicts, blockers, missing)
    weights = rules.axis_weights(verdicts, {s.name: list(s.role.axes) for s in panel})
    scores = rules.axis_scores(verdicts, weights)
    blocking = [writer.blocking_issue(b) for b in blockers]
    progress("decided", {"outcome": final_outcome.value, "rule": rule})
    summary, chair_note = await chair_summary(rt, pick, brief, settings, final_outcome.value, rule, verdicts,
                                              blocking, scores.model_dump())
    facts = DecisionFacts(request=request, outcome=final_outcome, rule=rule, verdicts=verdicts, blockers=blockers,
                          missing=missing, truncated=brief.truncated, debate=debate, role_notes=notes,
                          chair_note=chair_note, chair_failed=summary is None)
    needed: dict[str, list[str]] = {}
    for role, names in missing.items():
        for name in names:
            needed.setdefault(name, []).append(role)
    steps = [writer.missing_step(name, roles) for name, roles in needed.items()]
    audit = m.ReviewAudit(change_type=request.change_type, panel=[s.seat() for s in panel], rule=rule,
                          missing_artifacts=missing, debate=debate, axis_weights=weights, truncated=brief.truncated,
                          chair="rules" if summary is None else "model", request_sha256=request_sha256,
                          models={name: pick(name).describe() for name in [*(s.name for s in panel), CHAIR]})
    return m.ReviewedDecision(request_id=request.request_id, final_outcome=final_outcome, axis_scores=scores,
                              summary_reasoning=summary or writer.fallback_summary(facts), blocking_issues=blocking,
                              next_steps=(steps + rules.next_steps(verdicts, blockers))[:rules.MAX_NEXT_STEPS],
                              notes=writer.notes(facts), verdicts=verdicts, audit=audit)
