"""Clarification: plan one round of questions, keeping only those whose answer would change the recommendation.

One moderator call reads the request (and what was already asked) and returns the courses of action the council
will likely weigh (candidates A–D) and at most three targeted questions, each with its likely answers (choices),
the candidate each answer would favour, and the assumption to make if the user skips it. What hangs on each
question is recorded on it (:class:`~council.session.state.entities.QuestionStakes`); its decisiveness is computed here
from the leans — the share of pairs of likely answers that favour different candidates — never taken from the
model. Only decisive questions are asked, the most decisive first; the others are kept as weighed and not asked
(``QuestionsDropped``), and when none is left the council goes straight to the debate and says why. A plan that
names a candidate it did not list is repaired once, like any malformed reply. A failed clarifier does not block the
council: the session proceeds without questions and says so — unless its model cannot be used at all and no seat
has a model that may still work (``council.session.calls.structured``): then nothing else would answer either, so the
turn stops there with the one line that says why (no model could be reached, with the fix; or the models the user
did not allow), and a retry starts again from the questions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from council.session.calls.parsing import ParseFailure
from council.session.calls.prompts import clarifier_messages
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured, stranded
from council.session.state.entities import Choice, ChoiceLean, ClarificationQuestion, QuestionStakes
from council.session.state.outputs import CANDIDATE_IDS, NO_LEAN, ClarifierReply, PlannedQuestion, reply_schema
from council.session.state.runtime import Turn
from council.session.steps.debate import report_stall

MAX_QUESTIONS_PER_ROUND = 3
MIN_CHOICES, MAX_CHOICES = 2, 4


@dataclass
class RoundPlan:
    """A round's questions to ask (most decisive first) and the ones weighed and left out; ``clear``: the
    moderator found nothing to ask at all; ``failed``: no usable plan (already reported); ``stranded``: no model
    can answer in this turn (reported as the session's stall: the turn stops)."""

    ask: list[ClarificationQuestion] = field(default_factory=list)
    dropped: list[ClarificationQuestion] = field(default_factory=list)
    clear: bool = False
    failed: bool = False
    stranded: bool = False


def decisiveness(favours: list[str | None]) -> float:
    """The share of pairs of likely answers that favour different courses (an answer with no lean differs from
    none): 0 when every answer leads to the same recommendation, 1 when each leads somewhere else."""
    pairs = list(combinations(favours, 2))
    if not pairs:
        return 0.0
    return round(sum(1 for a, b in pairs if a and b and a != b) / len(pairs), 4)


def clarifier_schema() -> dict:
    schema = reply_schema(ClarifierReply, {"candidates": {"maxItems": len(CANDIDATE_IDS)}})
    defs = schema["$defs"]
    defs["PlannedChoice"]["properties"]["favours"] = {"type": "string", "enum": [*CANDIDATE_IDS, NO_LEAN]}
    defs["PlannedQuestion"]["properties"]["choices"].update({"minItems": MIN_CHOICES, "maxItems": MAX_CHOICES})
    return schema


def check_plan(reply: ClarifierReply) -> None:
    """A plan must say what hangs on each question: two or more candidates, and every choice's lean one of them."""
    if not reply.needs_clarification or not reply.questions:
        return
    known = CANDIDATE_IDS[: len(reply.candidates)]
    if len(reply.candidates) < 2 or len(reply.candidates) > len(CANDIDATE_IDS):
        raise ParseFailure("list 2 to 4 candidates (the courses of action the council will weigh) so each "
                           "choice can say which one it favours")
    for i, q in enumerate(reply.questions, start=1):
        if len(q.choices) < MIN_CHOICES:
            raise ParseFailure(f"question {i} needs {MIN_CHOICES} to {MAX_CHOICES} choices, each with the "
                               "candidate it favours")
        bad = [c.favours for c in q.choices if _lean(c.favours, reply.candidates) not in (None, *known)]
        if bad:
            raise ParseFailure(f"question {i}: favours must be one of {', '.join(known)} or {NO_LEAN} "
                               f"(got {', '.join(bad)})")


def _lean(favours: str, candidates: list[str]) -> str | None:
    """The candidate letter a choice favours (a weak model may write the candidate's name instead); None: no lean."""
    value = favours.strip().upper()
    if not value or value == NO_LEAN.upper():
        return None
    named = [CANDIDATE_IDS[i] for i, c in enumerate(candidates[: len(CANDIDATE_IDS)]) if c.strip().upper() == value]
    return named[0] if named else value


def stakes_of(planned: PlannedQuestion, candidates: list[str]) -> QuestionStakes:
    names = {CANDIDATE_IDS[i]: c.strip()[:200] for i, c in enumerate(candidates[: len(CANDIDATE_IDS)])}
    leans = [ChoiceLean(choice=c.answer.strip()[:120], favours=names.get(_lean(c.favours, candidates) or ""))
             for c in planned.choices[:MAX_CHOICES] if c.answer.strip()]
    return QuestionStakes(candidates=list(names.values()), leans=leans,
                          decisiveness=decisiveness([x.favours for x in leans]))


async def plan_round(rt: Turn, pick: ProviderPicker, round_number: int) -> RoundPlan:
    """The questions for ``round_number`` worth asking (possibly none) and the ones weighed and left out."""
    s = rt.session
    asked = [q.question for q in [*s.questions, *s.planned_questions, *s.unasked_questions]]
    schema = clarifier_schema()
    spec = CallSpec(role="clarifier", messages=clarifier_messages(s, schema, round_number, asked),
                    reply_model=ClarifierReply, schema=schema, max_tokens=700, temperature=0.3, check=check_plan,
                    report=lambda _failure: stranded(rt, pick) is None)  # stranded: said once, below
    outcome = await call_structured(rt, pick, spec)
    if outcome.reply is None:
        causes = stranded(rt, pick) if outcome.failure is not None else None
        if causes is not None:  # no seat has a model that may answer: one line, and the turn stops
            report_stall(rt, causes)
            return RoundPlan(failed=True, stranded=True)
        if outcome.failure is None:  # a failed call was reported as a problem already
            rt.note("no_questions", why=outcome.note)
        return RoundPlan(failed=True)
    reply = outcome.reply
    if not reply.needs_clarification or not reply.questions:
        return RoundPlan(clear=True)
    seen = {q.strip().lower() for q in asked}
    weighed: list[ClarificationQuestion] = []
    for planned in reply.questions:
        key = planned.question.strip().lower()
        if key in seen:
            continue
        seen.add(key)
        stakes = stakes_of(planned, reply.candidates)
        choices = [Choice(label=x.choice, value=x.choice) for x in stakes.leans]
        weighed.append(ClarificationQuestion(
            session_id=s.session_id, round_number=round_number, sequence_in_round=1,
            question=planned.question.strip(), target_ambiguity=planned.target_ambiguity,
            asked_by=s.moderator, choices=choices, free_text_allowed=True,
            default_assumption=planned.default_assumption.strip(), stakes=stakes, created_at=rt.clock(),
        ))
    decisive = sorted((q for q in weighed if q.stakes and q.stakes.decisive),
                      key=lambda q: -(q.stakes.decisiveness if q.stakes else 0))[:MAX_QUESTIONS_PER_ROUND]
    for i, q in enumerate(decisive, start=1):
        q.sequence_in_round = i
    return RoundPlan(ask=decisive, dropped=[q for q in weighed if q not in decisive], clear=not weighed)
