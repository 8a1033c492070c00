"""Clarification: plan one round of questions, keeping only those whose answer would change the recommendation.

One moderator call names the likely courses of action (candidates A–D) and at most three questions, each choice
with the candidate it favours; decisiveness is computed here from those leans, never taken from the model, and only
decisive questions are asked (the others are recorded as weighed). :class:`ClarifyingMoves` (a mixin of the engine)
holds the user's moves while the council clarifies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import combinations

from council.errors import validation_error
from council.session.calls.parsing import ParseFailure
from council.session.calls.prompts import clarifier_messages
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured, stranded
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.budget import Shape
from council.session.state.entities import SessionStatus as S
from council.session.state.outputs import CANDIDATE_IDS, NO_LEAN, ClarifierReply, PlannedQuestion, reply_schema
from council.session.state.runtime import Turn
from council.session.steps.answers import resolve, reuse
from council.session.steps.costing import remaining, speculates, state_plan
from council.session.steps.debate import report_stall
from council.session.steps.revisit import after_revisit, choose, revisable, start_revisit
from council.word_match import item_key
from council.words import n, t

MAX_QUESTIONS_PER_ROUND = 3
MIN_CHOICES, MAX_CHOICES = 2, 3
# What a model may write (its schema's maxLength; a grammar-bound small model writes every string up to it): a
# choice is a button's label (~5 words), a candidate the course a choice "favours" (~6 words).
CHOICE_CHARS, CANDIDATE_CHARS = 40, 48
# a lean written around its letter by a model not held to the schema's enum (the letter alone, or followed by a
# mark and words: never the first letter of a word, as "a small team" is not A)
_LEAN_LETTER = re.compile(r"^(?:OPTION|CANDIDATE|ВАРИАНТ)?\s*[(\[]?\s*([A-D])\s*(?:[)\].:\-–—]\s*.*)?$", re.DOTALL)


@dataclass
class RoundPlan:
    """A round's questions to ask (most decisive first) and the ones weighed and left out; ``clear``: the
    moderator found nothing to ask at all (neither: no usable plan, already reported); ``stranded``: no model can
    answer in this turn (reported as the session's stall: the turn stops)."""

    ask: list[e.ClarificationQuestion] = field(default_factory=list)
    dropped: list[e.ClarificationQuestion] = field(default_factory=list)
    clear: bool = False
    stranded: bool = False


def decisiveness(favours: list[str | None]) -> float:
    """The share of pairs of likely answers that favour different courses (an answer with no lean differs from
    none): 0 when every answer leads to the same recommendation, 1 when each leads somewhere else."""
    pairs = list(combinations(favours, 2))
    if not pairs:
        return 0.0
    return round(sum(1 for a, b in pairs if a and b and a != b) / len(pairs), 4)


def clarifier_schema() -> dict:
    """The plan's schema: two to four short candidates (so every choice has a course to favour), two or three short
    choices per question, each favouring a candidate's letter or none."""
    schema = reply_schema(ClarifierReply, {"candidates": {"minItems": 2, "maxItems": len(CANDIDATE_IDS)}})
    schema["properties"]["candidates"]["items"]["maxLength"] = CANDIDATE_CHARS
    defs = schema["$defs"]
    defs["PlannedChoice"]["properties"]["favours"] = {"type": "string", "enum": [*CANDIDATE_IDS, NO_LEAN]}
    defs["PlannedChoice"]["properties"]["answer"]["maxLength"] = CHOICE_CHARS
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
        bad = [c.favours for c in q.choices if _lean(c.favours, reply.candidates) not in (None, *CANDIDATE_IDS)]
        if bad:
            raise ParseFailure(f"question {i}: favours must be one of {', '.join(known)} or {NO_LEAN} "
                               f"(got {', '.join(bad)})")


def _lean(favours: str, candidates: list[str]) -> str | None:
    """The candidate letter a choice favours (a weak model may write the candidate's name instead); None: no lean,
    or a letter past the candidates the plan named (C of two: the choice favours no course it named — a weak model
    writes one under a grammar that allows A-D — and it is shown without a lean rather than the plan asked again)."""
    value = favours.strip().upper()
    if not value or value == NO_LEAN.upper():
        return None
    said = item_key(favours)  # a candidate's name in any case or spacing, with a full stop or not
    named = [CANDIDATE_IDS[i] for i, c in enumerate(candidates[: len(CANDIDATE_IDS)]) if item_key(c) == said]
    if named:
        return named[0]
    written = _LEAN_LETTER.match(value)  # "Option B", "(B)", "B." or "B: Wait": the letter B
    if written is not None:
        value = written.group(1)
    return None if value in CANDIDATE_IDS[len(candidates):] else value


def stakes_of(planned: PlannedQuestion, candidates: list[str]) -> e.QuestionStakes:
    """What hangs on a planned question: its first :data:`MAX_CHOICES` choices that say something, each once (by
    ``item_key``: "Yes" and "yes." are one button, with the first one's lean), and the candidate each favours; a
    candidate named twice is one course (answers favouring A and B, both "Wait", favour the same)."""
    first: dict[str, str] = {}  # a candidate's key → its name as first written
    for c in candidates[: len(CANDIDATE_IDS)]:
        first.setdefault(item_key(c), c.strip()[:200])
    names = {CANDIDATE_IDS[i]: first[item_key(c)] for i, c in enumerate(candidates[: len(CANDIDATE_IDS)])}
    leans: list[e.ChoiceLean] = []
    seen: set[str] = set()
    for c in planned.choices:
        key = item_key(c.answer)
        if not key or key in seen or len(leans) == MAX_CHOICES:
            continue
        seen.add(key)
        leans.append(e.ChoiceLean(choice=c.answer.strip()[:120], favours=names.get(_lean(c.favours, candidates) or "")))
    return e.QuestionStakes(candidates=list(first.values()), leans=leans,
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
            return RoundPlan(stranded=True)
        if outcome.failure is None:  # a failed call was reported as a problem already
            rt.note("no_questions", why=outcome.note)
        return RoundPlan()
    reply = outcome.reply
    if not reply.needs_clarification or not reply.questions:
        return RoundPlan(clear=True)
    seen = {item_key(q) for q in asked}  # a question differing only in case, spacing or a full stop: asked once
    weighed: list[e.ClarificationQuestion] = []
    for planned in reply.questions:
        key = item_key(planned.question)
        if key in seen:
            continue
        seen.add(key)
        stakes = stakes_of(planned, reply.candidates)
        choices = [e.Choice(label=x.choice, value=x.choice) for x in stakes.leans]
        weighed.append(e.ClarificationQuestion(
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


class ClarifyingMoves:
    """What the engine does with clarifying questions (``advance`` comes from the engine)."""

    async def advance(self, rt: Turn, pick: ProviderPicker) -> str | None:
        raise NotImplementedError  # the engine's loop

    async def _begin(self, rt: Turn, pick: ProviderPicker) -> str | None:
        """Plan the first clarification round (when the session clarifies) and run on: the start, and the resume
        of a session stopped before it had a question."""
        reason = "the request is clear; no questions"
        if rt.session.settings.clarify:
            rt.note("reading")
            plan = await plan_round(rt, pick, 1)
            if plan.stranded:  # no model can answer in this turn (said once): the session waits for a retry
                return "stalled"
            record_round(rt, 1, plan, "the request needs clarifying")
            if plan.ask:
                return await self.advance(rt, pick)
            if plan.dropped:
                reason = "no question would change the recommendation"
        rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason=reason))
        return await self.advance(rt, pick)

    async def answer(self, rt: Turn, question_id: str, action: str, text: str, choice: str | None,
                     pick: ProviderPicker) -> str | None:
        """Answer, skip or defer a question by id (a clicked button)."""
        active = self._active(rt)
        if active.question_id != question_id:
            raise validation_error(t("error.not_active_question"), questionId=question_id,
                                   activeQuestionId=active.question_id)
        if action == "answer" and not (text or choice):
            raise validation_error(t("error.answer_needs_text"), fields={"text": "required"})
        resolve(rt, question_id, action, text=text, choice=choice)
        return await self.advance(rt, pick)

    async def reply(self, rt: Turn, action: str, text: str, pick: ProviderPicker) -> str | None:
        """A typed answer, skip, skip-all or defer for the active question."""
        resolve(rt, self._active(rt).question_id, action, text=text, choice=None)
        return await self.advance(rt, pick)

    def _active(self, rt: Turn):
        s = rt.session
        if s.status is not S.CLARIFYING or s.active_question is None:
            raise validation_error(t("error.no_open_question"), reason="no_open_question", status=s.status.value)
        return s.active_question

    async def more_questions(self, rt: Turn, pick: ProviderPicker) -> str | None:
        s = rt.session
        if s.status is not S.CLARIFYING:
            raise validation_error(t("error.more_only_clarifying"), status=s.status.value)
        if s.planned_rounds >= e.MAX_CLARIFICATION_ROUNDS:
            raise validation_error(t("error.rounds_capped", rounds=n(e.MAX_CLARIFICATION_ROUNDS, "rounds_upto")),
                                   rounds=s.planned_rounds, cap=e.MAX_CLARIFICATION_ROUNDS)
        round_number = s.planned_rounds + 1
        if state_plan(rt, "more_questions", remaining(s, clarifier=True), speculate=await speculates(s, pick)) is None:
            return "over_budget"
        plan = await plan_round(rt, pick, round_number)
        if plan.stranded:
            return "stalled"
        record_round(rt, round_number, plan, f"clarification round {round_number}", quiet_when_clear=True)
        if not plan.ask:
            return "no_more_questions"
        await self.advance(rt, pick)
        return "more_planned"

    async def revisit(self, rt: Turn, question_id: str | None, text: str,
                      pick: ProviderPicker) -> str | None:
        """Ask a skipped or deferred question again after the answer (its answer then re-runs one vote round and
        the answer; skipped again, the answer stands). ``"which_question"`` when the turn names none."""
        chosen = choose(rt.session, question_id, text)
        if chosen is None:
            return "which_question"
        q = revisable(rt.session, chosen)
        if state_plan(rt, "revisit", Shape(len(rt.session.personas), 1, False)) is None:  # a vote round, the answer
            return "over_budget"
        start_revisit(rt, q)
        return await self.advance(rt, pick)

    def _ask_next(self, rt: Turn) -> str | None:
        s = rt.session
        if s.open_revisit is not None and not s.planned_questions:
            return after_revisit(rt)  # the revisited question is resolved: re-run what its answer changes
        nxt = s.planned_questions[0] if s.planned_questions else next(
            (q for q in s.questions if q.status is e.QuestionStatus.DEFERRED), None)
        if nxt is None:
            rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="clarification finished"))
            return None
        turn = rt.turn(s.moderator, e.MessageType.QUESTION, nxt.question,
                       cycle=e.CycleRef(cycle_type="clarification", number=nxt.round_number),
                       metadata={"questionId": nxt.question_id})
        # a question the user replied to before a reload lost the session gets that reply: it is not asked again
        reused = rt.live.earlier is not None and rt.live.earlier.match(nxt) is not None
        rt.record(r.QuestionAsked(at=rt.clock(), question_id=nxt.question_id, turn=turn, reused=reused))
        if reused:
            reuse(rt, rt.live.earlier)
        return None


def record_round(rt: Turn, round_number: int, plan: RoundPlan, reason: str, quiet_when_clear: bool = False) -> None:
    """Journal a planned round: the session clarifies (for ``reason``) and the questions to ask are planned; the
    ones weighed and left out (or that there was nothing worth asking: said once, as the council goes straight to
    the debate)."""
    if plan.ask:
        rt.record(r.StatusSet(at=rt.clock(), status=S.CLARIFYING, reason=reason))
        rt.record(r.QuestionsPlanned(at=rt.clock(), round=round_number, questions=plan.ask))
    if plan.dropped or (plan.clear and not plan.ask and not quiet_when_clear):
        rt.record(r.QuestionsDropped(at=rt.clock(), round=round_number, questions=plan.dropped,
                                     reason="not_decisive" if plan.dropped else "clear", asked=len(plan.ask)))
