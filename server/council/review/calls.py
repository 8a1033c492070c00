"""The review's model calls, on the session's call machinery (``session.calls.call_structured``): the same
providers, retries, parse repair and cancellation as a chat council; a :class:`ReviewObserver` stands in for the
chat narrator. A role scores the axes as flat ``score_<axis>`` keys (a small model fills them reliably) and gives its
verdict last, after the evidence. Checks: exactly one checklist answer per item (hard: one repair, then the call
fails); a verdict that contradicts the role's own findings gets one repair request and is then kept as given (the
chair's rules read the findings, not the label).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from pydantic import Field

from council.errors import ErrorCode
from council.personas.contract import ReviewRole
from council.review.models import AXES, AxisScores, ChecklistResult, RoleVerdict, Score, Verdict
from council.review.panel import SeatedRole
from council.review.prompts import DEFAULT_BUDGET, Brief, chair_messages, role_messages
from council.session.calls.parsing import ParseFailure
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured
from council.session.state.outputs import REPAIRED_NOTE, ModelFailure, ModelReply, reply_schema
from council.session.state.runtime import Turn

Progress = Callable[[str, dict[str, Any]], None]
CHAIR = "Chair"
OUTCOME_WORDS = {"APPROVE": ("approv",), "REJECT": ("reject",),
                 "NEEDS_MORE_INFO": ("more info", "more_info", "information")}

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


def technical(failure: ModelFailure) -> str:
    """A failed call's technical cause for the error's details (provider, kind, what it said)."""
    return f"{failure.provider}: {failure.kind}, {failure.detail}"


class ReviewObserver:
    """The observer of a review (a turn with no session: nothing is recorded): problems are kept per role and
    reported as progress."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.problems: dict[str, str] = {}

    def note(self, rt: None, kind: str, data: dict[str, Any]) -> None:
        self.progress(kind, data)

    def problem(self, rt: None, kind: str, data: dict[str, Any], *, code: ErrorCode,
                persona: str | None, retryable: bool) -> None:
        role = persona or str(data.get("role", ""))
        failure = data.get("failure")
        self.problems[role] = technical(failure) if failure else str(data.get("message") or data.get("error") or kind)
        self.progress("problem", {"role": role, "kind": kind, "message": self.problems[role]})

    def persona_started(self, rt: None, persona: str, cycle: int, provider: str, model: str) -> None:
        self.progress("role_started", {"role": persona, "round": cycle, "provider": provider, "model": model})

    def persona_text(self, rt: None, persona: str, cycle: int, chunk: str) -> None:
        """Role replies are JSON; they are not streamed to people."""


@dataclass(frozen=True)
class RoleRun:
    """One role's answer in one round: its verdict, or None and why."""

    verdict: RoleVerdict | None
    note: str | None = None


@dataclass(frozen=True)
class ReviewSettings:
    """Knobs of a review (defaults suit a real model; tests and small models lower them)."""

    artifact_budget: int = DEFAULT_BUDGET
    max_tokens: int = 1500
    temperature: float = 0.2
    debate: bool = True


async def run_round(rt: Turn, pick: ProviderPicker, panel: list[SeatedRole], brief: Brief,
                    missing: dict[str, list[str]], settings: ReviewSettings, round_no: int,
                    first: dict[str, RoleVerdict] | None = None) -> dict[str, RoleRun]:
    """Every seated role answers at once; with ``first`` (the first round's verdicts) this is the debate round."""
    runs: dict[str, RoleRun] = {}

    async def one(seated: SeatedRole) -> None:
        schema = role_schema(seated.role)
        own = first.get(seated.name) if first else None
        peers = list(first.values()) if first else None
        provider = pick(seated.name)
        rt.persona_started(seated.name, round_no, provider.id, provider.model)
        spec = CallSpec(role=seated.name, reply_model=RoleReply, schema=schema, max_tokens=settings.max_tokens,
                        messages=role_messages(seated, brief, schema, missing.get(seated.name, []), own, peers),
                        temperature=settings.temperature, cycle=round_no, check=check_reply(seated.role),
                        soft_check=soft_check(seated.role))
        outcome = await call_structured(rt, pick, spec)
        if outcome.reply is None:
            runs[seated.name] = RoleRun(None, technical(outcome.failure) if outcome.failure else outcome.note)
            return
        verdict = to_verdict(seated.name, seated.role, outcome.reply)
        runs[seated.name] = RoleRun(verdict, outcome.note or (REPAIRED_NOTE if outcome.repaired else None))
        rt.note("verdict", role=seated.name, round=round_no, verdict=verdict.verdict.value,
                confidence=verdict.confidence_score)

    async with anyio.create_task_group() as tg:
        for seated in panel:
            tg.start_soon(one, seated)
    return {seated.name: runs[seated.name] for seated in panel}


def _states_outcome(outcome: str) -> Callable[[ChairReply], str | None]:
    def check(reply: ChairReply) -> str | None:
        text = reply.summary_reasoning.lower()
        if any(word in text for word in OUTCOME_WORDS[outcome]):
            return None
        return f"summary_reasoning must state the outcome, {outcome}"
    return check


async def chair_summary(rt: Turn, pick: ProviderPicker, brief: Brief, settings: ReviewSettings,
                        outcome: str, rule: str, verdicts: list[RoleVerdict], blocking: list[str],
                        scores: dict[str, float]) -> tuple[str | None, str | None]:
    """The chair's summary_reasoning (None when its model failed) and a note about the call, if any."""
    schema = reply_schema(ChairReply, {"summary_reasoning": {"minLength": 20, "maxLength": 1200}})
    spec = CallSpec(role=CHAIR, reply_model=ChairReply, schema=schema, max_tokens=min(settings.max_tokens, 600),
                    messages=chair_messages(brief, schema, outcome, rule, verdicts, blocking, scores),
                    temperature=settings.temperature, soft_check=_states_outcome(outcome))
    rt.note("chair", outcome=outcome)
    result = await call_structured(rt, pick, spec)
    if result.reply is None:
        return None, result.note
    return " ".join(result.reply.summary_reasoning.split()), result.note
