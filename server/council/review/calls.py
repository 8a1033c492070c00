"""The review's model calls, on the session's call machinery (``session.calls.call_structured``): the same
providers, retries, parse repair and cancellation as a chat council. A :class:`ReviewObserver` stands in for the
chat narrator: model problems are collected (a failed role makes the review fail, never a verdict) and passed on to
the caller's progress callback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio

from council.errors import ErrorCode
from council.review import replies
from council.review.budget import DEFAULT_BUDGET
from council.review.models import RoleVerdict
from council.review.panel import SeatedRole
from council.review.prompts import Brief, chair_messages, role_messages
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured
from council.session.state.outputs import ModelFailure
from council.session.state.runtime import Turn

Progress = Callable[[str, dict[str, Any]], None]
CHAIR = "Chair"
OUTCOME_WORDS = {"APPROVE": ("approv",), "REJECT": ("reject",),
                 "NEEDS_MORE_INFO": ("more info", "more_info", "information")}


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
        schema = replies.role_schema(seated.role)
        own = first.get(seated.name) if first else None
        peers = list(first.values()) if first else None
        provider = pick(seated.name)
        rt.persona_started(seated.name, round_no, provider.id, provider.model)
        spec = CallSpec(role=seated.name, reply_model=replies.RoleReply, schema=schema, max_tokens=settings.max_tokens,
                        messages=role_messages(seated, brief, schema, missing.get(seated.name, []), own, peers),
                        temperature=settings.temperature, cycle=round_no, check=replies.check_reply(seated.role),
                        soft_check=replies.soft_check(seated.role))
        outcome = await call_structured(rt, pick, spec)
        if outcome.reply is None:
            runs[seated.name] = RoleRun(None, technical(outcome.failure) if outcome.failure else outcome.note)
            return
        verdict = replies.to_verdict(seated.name, seated.role, outcome.reply)
        runs[seated.name] = RoleRun(verdict, outcome.note or ("repaired after one retry" if outcome.repaired
                                                              else None))
        rt.note("verdict", role=seated.name, round=round_no, verdict=verdict.verdict.value,
                confidence=verdict.confidence_score)

    async with anyio.create_task_group() as tg:
        for seated in panel:
            tg.start_soon(one, seated)
    return {seated.name: runs[seated.name] for seated in panel}


def _states_outcome(outcome: str) -> Callable[[replies.ChairReply], str | None]:
    def check(reply: replies.ChairReply) -> str | None:
        text = reply.summary_reasoning.lower()
        if any(word in text for word in OUTCOME_WORDS[outcome]):
            return None
        return f"summary_reasoning must state the outcome, {outcome}"
    return check


async def chair_summary(rt: Turn, pick: ProviderPicker, brief: Brief, settings: ReviewSettings,
                        outcome: str, rule: str, verdicts: list[RoleVerdict], blocking: list[str],
                        scores: dict[str, float]) -> tuple[str | None, str | None]:
    """The chair's summary_reasoning (None when its model failed) and a note about the call, if any."""
    schema = replies.chair_schema()
    spec = CallSpec(role=CHAIR, reply_model=replies.ChairReply, schema=schema, max_tokens=min(settings.max_tokens, 600),
                    messages=chair_messages(brief, schema, outcome, rule, verdicts, blocking, scores),
                    temperature=settings.temperature, soft_check=_states_outcome(outcome))
    rt.note("chair", outcome=outcome)
    result = await call_structured(rt, pick, spec)
    if result.reply is None:
        return None, result.note
    return " ".join(result.reply.summary_reasoning.split()), result.note
