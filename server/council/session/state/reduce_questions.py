"""The reducer's clarification records: rounds planned (at most three) and weighed questions not asked, one
question asked at a time, answers, skips (each logging its assumption once), deferrals, and a skipped or deferred
question revisited after the answer (its answer replaces the assumption). ``clarificationRounds`` counts the rounds
completed — every question of the round answered, skipped or deferred — never the rounds planned. Each handler
validates first and mutates second, as ``reducer.apply`` requires."""

from __future__ import annotations

from council.errors import validation_error
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.entities import SessionStatus as S


def _questions_planned(s: e.ConversationSession, rec: r.QuestionsPlanned) -> None:
    if rec.round != s.planned_rounds + 1 or rec.round > e.MAX_CLARIFICATION_ROUNDS:
        raise validation_error(
            f"clarification rounds are capped at {e.MAX_CLARIFICATION_ROUNDS}",
            round=rec.round, cap=e.MAX_CLARIFICATION_ROUNDS,
        )
    if not rec.questions:
        raise validation_error("a clarification round plans at least one question")
    if any(q.round_number != rec.round for q in rec.questions):
        raise validation_error("planned questions must belong to the new round")
    s.planned_questions.extend(q.model_copy(deep=True) for q in rec.questions)  # their status changes later


def _questions_dropped(s: e.ConversationSession, rec: r.QuestionsDropped) -> None:
    if rec.round not in (s.planned_rounds, s.planned_rounds + 1) or rec.round > e.MAX_CLARIFICATION_ROUNDS:
        raise validation_error("questions are weighed for the round being planned", round=rec.round)
    if any(q.round_number != rec.round for q in rec.questions):
        raise validation_error("weighed questions must belong to their round")
    s.unasked_questions.extend(rec.questions)


def _count_rounds(s: e.ConversationSession) -> None:
    """Clarification rounds completed: those whose every question was answered, skipped or deferred (a question
    asked again later does not re-open its round). Rounds complete in order, and the count never goes down."""
    waiting = {q.round_number for q in s.planned_questions}
    waiting |= {q.round_number for q in s.questions if q.status is e.QuestionStatus.PENDING and not q.revisited}
    done = next((n - 1 for n in range(1, s.planned_rounds + 1) if n in waiting), s.planned_rounds)
    s.clarification_rounds = max(s.clarification_rounds, done)


def _question_asked(s: e.ConversationSession, rec: r.QuestionAsked) -> None:
    if s.active_question is not None:
        raise validation_error("exactly one question may be active at a time",
                               activeQuestionId=s.active_question.question_id)
    planned = next((q for q in s.planned_questions if q.question_id == rec.question_id), None)
    deferred = s.question(rec.question_id)
    revisit = s.open_revisit
    again = rec.revisit and revisit is not None and revisit.question_id == rec.question_id and deferred is not None \
        and deferred.status in (e.QuestionStatus.SKIPPED, e.QuestionStatus.DEFERRED)
    if planned is None and not again and (deferred is None or deferred.status is not e.QuestionStatus.DEFERRED):
        raise validation_error("no such planned or deferred question", questionId=rec.question_id)
    e.check_turn(s, rec.turn, e.MessageType.QUESTION)
    if planned is not None:
        s.planned_questions.remove(planned)
        planned.status = e.QuestionStatus.PENDING
        s.questions.append(planned)
    else:
        assert deferred is not None
        deferred.status = e.QuestionStatus.PENDING
        deferred.revisited = True
        if again:  # a skipped or deferred question revisited after the answer: its earlier reply goes
            deferred.user_answer = None
            deferred.answered_at = None


def _resolve_target(s: e.ConversationSession, question_id: str, *, allow_planned: bool):
    q = s.question(question_id)
    if q is not None and q.status in (e.QuestionStatus.PENDING, e.QuestionStatus.DEFERRED):
        return q, False
    if allow_planned:
        planned = next((p for p in s.planned_questions if p.question_id == question_id), None)
        if planned is not None:
            return planned, True
    raise validation_error("question is not open", questionId=question_id,
                           status=q.status.value if q else "unknown")


def _question_answered(s: e.ConversationSession, rec: r.QuestionAnswered) -> None:
    q, _ = _resolve_target(s, rec.answer.question_id, allow_planned=False)
    if q.status is not e.QuestionStatus.PENDING:
        raise validation_error("only the active question can be answered", questionId=q.question_id)
    e.check_turn(s, rec.turn, e.MessageType.ANSWER)
    q.user_answer = rec.answer
    q.status = e.QuestionStatus.ANSWERED
    q.answered_at = rec.at
    revisit = s.open_revisit
    if revisit is not None and revisit.question_id == q.question_id:  # the answer replaces the assumption
        revisit.answer = rec.answer.answer
        s.assumption_log = [a for a in s.assumption_log if a.related_question_id != q.question_id]
    _count_rounds(s)


def _question_skipped(s: e.ConversationSession, rec: r.QuestionSkipped) -> None:
    q, planned = _resolve_target(s, rec.answer.question_id, allow_planned=True)
    e.check_turn(s, rec.turn, e.MessageType.ASSUMPTION_STATEMENT)
    if planned:
        s.planned_questions.remove(q)
        s.questions.append(q)
    q.user_answer = rec.answer
    q.status = e.QuestionStatus.SKIPPED
    q.answered_at = rec.at
    if not any(a.related_question_id == q.question_id for a in s.assumption_log):  # skipped again: it stands
        s.assumption_log.append(rec.assumption)
    _count_rounds(s)


def _question_deferred(s: e.ConversationSession, rec: r.QuestionDeferred) -> None:
    q, _ = _resolve_target(s, rec.question_id, allow_planned=False)
    if q.status is not e.QuestionStatus.PENDING:
        raise validation_error("only the active question can be deferred", questionId=q.question_id)
    q.status = e.QuestionStatus.DEFERRED
    _count_rounds(s)


def _revisit_started(s: e.ConversationSession, rec: r.RevisitStarted) -> None:
    v = rec.revisit
    q = s.question(v.question_id)
    if s.status is not S.COMPLETED:
        raise validation_error("a question is revisited once the council has answered", status=s.status.value)
    if q is None or q.status not in (e.QuestionStatus.SKIPPED, e.QuestionStatus.DEFERRED):
        raise validation_error("only a skipped or deferred question can be revisited", questionId=v.question_id,
                               status=q.status.value if q else "unknown")
    if v.session_id != s.session_id:
        raise validation_error("the revisit belongs to another session", sessionId=v.session_id)
    if s.debate_cycles >= e.MAX_TOTAL_CYCLES:
        raise validation_error(f"the debate has run its maximum of {e.MAX_TOTAL_CYCLES} cycles", cap=e.MAX_TOTAL_CYCLES)
    s.revisits.append(v.model_copy())  # settled later, on the copy
    if s.debate_cycles:  # room for one vote round on the positions the council has
        s.reopened_cycle_limit = max(s.reopened_cycle_limit, s.debate_cycles + 1)


QUESTION_HANDLERS = (
    _questions_planned, _questions_dropped, _revisit_started, _question_asked, _question_answered, _question_skipped,
    _question_deferred,
)
