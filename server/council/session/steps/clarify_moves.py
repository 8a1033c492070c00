"""The user's moves while the council clarifies: answering, skipping or deferring the active question, asking
for more questions, revisiting a skipped or deferred one after the answer, and asking the next planned question.

A mixin of :class:`~council.session.steps.engine.Engine` (which provides ``advance``): planning the first round when a
session starts (``_begin``) is here too, so everything about which questions are asked lives in one place. Every
state change goes through ``rt.record``; each move returns ``None`` or the kind of note the caller should show.
"""

from __future__ import annotations

from council.errors import validation_error
from council.session.calls.structured import ProviderPicker
from council.session.state import records as r
from council.session.state.budget import Shape
from council.session.state.entities import MAX_CLARIFICATION_ROUNDS, CycleRef, MessageType, QuestionStatus
from council.session.state.entities import SessionStatus as S
from council.session.state.runtime import Turn
from council.session.steps.answers import resolve, reuse
from council.session.steps.clarifier import RoundPlan, plan_round
from council.session.steps.costing import remaining, state_plan
from council.session.steps.revisit import after_revisit, choose, revisable, start_revisit
from council.words import n, t


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
            if plan.ask:
                rt.record(r.StatusSet(at=rt.clock(), status=S.CLARIFYING, reason="the request needs clarifying"))
            record_round(rt, 1, plan)
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
        if s.planned_rounds >= MAX_CLARIFICATION_ROUNDS:
            raise validation_error(t("error.rounds_capped", rounds=n(MAX_CLARIFICATION_ROUNDS, "rounds_upto")),
                                   rounds=s.planned_rounds, cap=MAX_CLARIFICATION_ROUNDS)
        round_number = s.planned_rounds + 1
        if state_plan(rt, "more_questions", remaining(s, clarifier=True)) is None:
            return "over_budget"
        plan = await plan_round(rt, pick, round_number)
        if plan.stranded:
            return "stalled"
        if plan.ask:
            rt.record(r.StatusSet(at=rt.clock(), status=S.CLARIFYING, reason=f"clarification round {round_number}"))
        record_round(rt, round_number, plan, quiet_when_clear=True)
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
        if s.open_revisit is not None and not s.planned_questions:  # the revisited question is resolved: re-run
            # what its answer changes
            return after_revisit(rt)
        nxt = s.planned_questions[0] if s.planned_questions else next(
            (q for q in s.questions if q.status is QuestionStatus.DEFERRED), None)
        if nxt is None:
            rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="clarification finished"))
            return None
        turn = rt.turn(s.moderator, MessageType.QUESTION, nxt.question,
                       cycle=CycleRef(cycle_type="clarification", number=nxt.round_number),
                       metadata={"questionId": nxt.question_id})
        # a question the user replied to before a reload lost the session gets that reply: it is not asked again
        reused = rt.live.earlier is not None and rt.live.earlier.match(nxt) is not None
        rt.record(r.QuestionAsked(at=rt.clock(), question_id=nxt.question_id, turn=turn, reused=reused))
        if reused:
            reuse(rt, rt.live.earlier)
        return None


def record_round(rt: Turn, round_number: int, plan: RoundPlan, quiet_when_clear: bool = False) -> None:
    """Journal a planned round: the questions to ask, and the ones weighed and left out (or that there was
    nothing worth asking: said once, as the council goes straight to the debate)."""
    if plan.ask:
        rt.record(r.QuestionsPlanned(at=rt.clock(), round=round_number, questions=plan.ask))
    if plan.dropped or (plan.clear and not plan.ask and not quiet_when_clear):
        rt.record(r.QuestionsDropped(at=rt.clock(), round=round_number, questions=plan.dropped,
                                     reason="not_decisive" if plan.dropped else "clear", asked=len(plan.ask)))
