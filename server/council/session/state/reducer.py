"""Applies journal records to a ConversationSession, enforcing the data model's rules; replays a journal.

``apply`` validates first and mutates second, so a refused record leaves the session untouched. Every rule of seed
002 that concerns change lives here (the status and turn rules in ``entities``). Each handler is found by the record
type its ``rec`` parameter is annotated with. ``clarificationRounds`` counts the clarification rounds completed, never
the rounds planned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import get_args, get_type_hints

from council.errors import validation_error
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.entities import SessionStatus as S
from council.session.state.seating import fall_back, model_label


def apply(session: e.ConversationSession | None, rec: r.RecordBase) -> e.ConversationSession:
    """Apply one record; raise a validation CouncilError (leaving the session unchanged) if it breaks a rule.

    The session shares the record's objects (a persona's response, a vote, a turn) instead of copying them: none
    of them changes after it is recorded. The two the session does change later — a cycle's discussion and planned
    questions — are copied as they are applied, so the journal keeps every record as it was.
    """
    if isinstance(rec, r.SessionCreated):
        if session is not None:
            raise validation_error("session already created")
        return e.ConversationSession(
            session_id=rec.session_id,
            user_id=rec.user.name,
            request_text=rec.request_text,
            created_at=rec.at,
            updated_at=rec.at,
            participants=[rec.user, rec.moderator],
            settings=rec.settings,
            context_text=rec.context_text,
            workspace_overview=rec.workspace_overview,
            extended_debate_requested=rec.extended_debate,
            metadata=e.SessionMetadata(correlation_id=rec.correlation_id, context=rec.context_names),
        )
    if session is None:
        raise validation_error("the first record must be session_created")
    _HANDLERS[type(rec)](session, rec)
    turn = rec.__dict__.get("turn")  # the records that write a message turn (their handler checked it); not
    # getattr: on a record without one, pydantic raises and catches an AttributeError, for most records
    if turn is not None:
        session.message_turns.append(turn)
    session.updated_at = rec.at
    return session


def _personas_selected(s: e.ConversationSession, rec: r.PersonasSelected) -> None:
    if s.persona_selection is not None:
        raise validation_error("personas already selected")
    s.persona_selection = rec.selection
    s.participants.extend(rec.selection.selected_personas)


def _status_set(s: e.ConversationSession, rec: r.StatusSet) -> None:
    e.check_transition(s.status, rec.status)
    if rec.status is S.DEBATING and not s.personas:
        raise validation_error("participants must include at least one persona before debating")
    if rec.status is S.COMPLETED:
        if not s.final_answer:
            raise validation_error("cannot complete without a final answer")
        if not s.message_turns:
            raise validation_error("cannot complete a session with no message turns")
    if s.status is S.COMPLETED and rec.status is S.DEBATING and s.debate_cycles >= s.cycle_limit:
        raise validation_error("the debate is at its cycle limit; extend it first", limit=s.cycle_limit)
    if s.status is S.COMPLETED and rec.status is S.CLARIFYING and s.open_revisit is None:
        raise validation_error("a completed session clarifies again only to revisit a question")
    if rec.status is S.COMPLETED and s.open_revisit is not None:
        s.open_revisit.settled = True
    s.status = rec.status
    s.stopped = s.stopped and rec.status is not S.CANCELLED  # a cancelled session is over, not paused


def _cycle_started(s: e.ConversationSession, rec: r.CycleStarted) -> None:
    d = rec.discussion.model_copy(update={"message_turn_ids": list(rec.discussion.message_turn_ids)})  # filled
    # in later: its turns (this list), status and convergence (reassigned on the copy only)
    if s.status is not S.DEBATING:
        raise validation_error("cycles run only while debating", status=s.status.value)
    if d.cycle_number != s.debate_cycles + 1:
        raise validation_error("debate cycles are numbered consecutively", expected=s.debate_cycles + 1)
    if d.cycle_number > s.cycle_limit:
        raise validation_error(f"debate cycles are capped at {s.cycle_limit}", limit=s.cycle_limit)
    if s.open_cycle is not None:
        raise validation_error("the previous cycle is still in progress")
    s.discussions.append(d)
    s.debate_cycles = d.cycle_number


def _persona_spoke(s: e.ConversationSession, rec: r.PersonaSpoke) -> None:
    if rec.response.cycle == 0:
        return _answered_alone(s, rec)
    if s.open_cycle is None:
        raise validation_error("no debate cycle is in progress")
    if rec.response.cycle != s.open_cycle:
        raise validation_error("response belongs to another cycle", cycle=rec.response.cycle)
    if rec.turn.message_type is not e.MessageType.DISCUSSION:
        raise validation_error("a persona's cycle contribution is a discussion turn")
    e.check_turn(s, rec.turn)
    s.discussions[-1].message_turn_ids.append(rec.turn.turn_id)
    s.responses.append(rec.response)


def _answered_alone(s: e.ConversationSession, rec: r.PersonaSpoke) -> None:
    """A council of one answers without a debate: its reply (cycle 0) is its conclusion (seed 002: a discussion
    needs at least two personas)."""
    if len(s.personas) != 1 or s.personas[0].name != rec.response.persona:
        raise validation_error("only the one persona of a council of one answers outside a debate cycle")
    if rec.turn.message_type is not e.MessageType.CONCLUSION:
        raise validation_error("the answer of a council of one is a conclusion turn")
    e.check_turn(s, rec.turn)
    s.responses.append(rec.response)


def _cycle_concluded(s: e.ConversationSession, rec: r.CycleConcluded) -> None:
    if not s.discussions or s.discussions[-1].cycle_number != rec.cycle:
        raise validation_error("no such cycle in progress", cycle=rec.cycle)
    d = s.discussions[-1]
    if d.status is not e.DiscussionStatus.IN_PROGRESS:
        raise validation_error("cycle already concluded", cycle=rec.cycle)
    if not rec.resolution_summary:
        raise validation_error("a resolution summary is required to conclude a cycle")
    if rec.status is e.DiscussionStatus.IN_PROGRESS:
        raise validation_error("a concluded cycle cannot be in progress")
    d.resolution_summary = rec.resolution_summary
    d.status = rec.status
    d.convergence = rec.convergence
    d.stop_reason = rec.stop_reason
    d.exchange_ends = rec.at


def _options_set(s: e.ConversationSession, rec: r.OptionsSet) -> None:
    if len(rec.options) < 2:
        raise validation_error("a vote needs at least two options")
    s.options = rec.options


def _vote_cast(s: e.ConversationSession, rec: r.VoteCast) -> None:
    if rec.vote.option_id not in {o.id for o in s.options}:
        raise validation_error("vote for an unknown option", optionId=rec.vote.option_id)
    if s.status is not S.DEBATING:
        raise validation_error("votes are cast while debating", status=s.status.value)
    if rec.vote.cycle != s.debate_cycles:
        raise validation_error("a vote belongs to the current cycle", cycle=rec.vote.cycle)
    if any(v.persona == rec.vote.persona and v.cycle == rec.vote.cycle for v in s.votes):
        raise validation_error("one vote per persona per round", persona=rec.vote.persona)
    if s.participant(rec.vote.persona) is None:
        raise validation_error("only council personas vote", persona=rec.vote.persona)
    s.votes.append(rec.vote)


def _conclusion_stated(s: e.ConversationSession, rec: r.ConclusionStated) -> None:
    if rec.turn.sender.type is not e.ParticipantType.PERSONA or s.participant(rec.turn.sender.name) is None:
        raise validation_error("conclusions come from the council's personas")
    if s.open_cycle is not None:
        raise validation_error("conclusions come after the debate cycles")
    e.check_turn(s, rec.turn, e.MessageType.CONCLUSION)


def _tally_set(s: e.ConversationSession, rec: r.TallySet) -> None:
    s.tally = rec.tally


def _debate_extended(s: e.ConversationSession, rec: r.DebateExtended) -> None:
    if s.status is S.CANCELLED:
        raise validation_error("the session is cancelled")
    if s.extended_debate_requested:
        raise validation_error("the debate is already extended", limit=s.cycle_limit)
    s.extended_debate_requested = True


def _synthesis_set(s: e.ConversationSession, rec: r.SynthesisSet) -> None:
    if s.status is not S.FINAL:
        raise validation_error("the final answer is written in the final status", status=s.status.value)
    s.synthesis = rec.synthesis
    s.final_answer = rec.final_answer


def _follow_up_answered(s: e.ConversationSession, rec: r.FollowUpAnswered) -> None:
    if s.status is not S.COMPLETED:
        raise validation_error("follow-up questions are answered once the session is completed",
                               status=s.status.value)
    if rec.follow_up.session_id != s.session_id:
        raise validation_error("the follow-up belongs to another session", sessionId=rec.follow_up.session_id)
    s.follow_ups.append(rec.follow_up)


def _debate_reopened(s: e.ConversationSession, rec: r.DebateReopened) -> None:
    if s.status is not S.COMPLETED:
        raise validation_error("only a completed debate can be re-opened", status=s.status.value)
    if rec.input.session_id != s.session_id:
        raise validation_error("the input belongs to another session", sessionId=rec.input.session_id)
    if s.debate_cycles >= e.MAX_TOTAL_CYCLES:
        raise validation_error(f"the debate has run its maximum of {e.MAX_TOTAL_CYCLES} cycles", cap=e.MAX_TOTAL_CYCLES)
    s.user_inputs.append(rec.input)
    s.reopened_cycle_limit = min(s.debate_cycles + e.REOPEN_CYCLES, e.MAX_TOTAL_CYCLES)


def _model_used(s: e.ConversationSession, rec: r.ModelUsed) -> None:
    use = s.metadata.models.get(rec.role) or e.ModelUse(provider=rec.provider, model=rec.model)
    use.provider, use.model = rec.provider, rec.model
    use.calls += 1
    use.failures += int(rec.failed)
    s.metadata.models[rec.role] = use
    s.metadata.timings_ms[rec.role] = s.metadata.timings_ms.get(rec.role, 0.0) + rec.latency_ms
    label = model_label(rec.provider, rec.model)  # the spending per model, counted against the budget
    s.metadata.calls_by_model[label] = s.metadata.calls_by_model.get(label, 0) + 1
    if rec.failed:
        s.metadata.failed_by_model[label] = s.metadata.failed_by_model.get(label, 0) + 1
    if rec.cancelled:
        s.metadata.cancelled_by_model[label] = s.metadata.cancelled_by_model.get(label, 0) + 1
    if rec.spent is not None:
        spent = s.metadata.spent_by_model.get(label)
        s.metadata.spent_by_model[label] = rec.spent if spent is None else spent.plus(rec.spent)
    s.metadata.calls += 1
    s.metadata.first_calls += int(not rec.retry)


def _seated(s: e.ConversationSession, rec: r.SeatingDecided) -> None:
    names = {p.name for p in s.personas}
    unknown = [seat.persona for seat in rec.seating.seats if seat.persona not in names]
    if unknown:
        raise validation_error("the seating names personas that are not on the council", personas=unknown)
    s.seating = rec.seating.model_copy(deep=True)  # fallbacks change it later; the journal keeps the record


def _seat_fell_back(s: e.ConversationSession, rec: r.SeatFellBack) -> None:
    if s.seating is None:
        raise validation_error("a seat fell back before the session was seated")
    fall_back(s.seating, rec.model_id, rec.reason, rec.detail)


def _calls_planned(s: e.ConversationSession, rec: r.CallsPlanned) -> None:
    s.call_plans.append(rec.plan)


def _cycle_dropped(s: e.ConversationSession, rec: r.CycleDropped) -> None:
    """Take back the cycle in progress — its discussion, turns, responses and votes (and, in cycle 1, the options
    it proposed) — keeping every concluded cycle, the answers and the assumptions (a stop, or a cycle in which every
    advisor failed: ``retry`` runs it again; or one in which no reply could be used: kept in ``unusable_cycles``).
    The live session records it with ``SessionRuntime.drop_open_cycle``."""
    cycle = rec.cycle
    if s.open_cycle != cycle:
        raise validation_error("only the cycle in progress can be dropped", cycle=cycle, open=s.open_cycle)
    turns = set(s.discussions[-1].message_turn_ids)
    s.message_turns = [t for t in s.message_turns if t.turn_id not in turns]  # the cycle's turns are the tail
    s.responses = [x for x in s.responses if x.cycle != cycle]
    s.votes = [v for v in s.votes if v.cycle != cycle]
    if cycle == 1:
        s.options = []
    s.discussions.pop()
    s.debate_cycles = cycle - 1
    if rec.reason == "unusable":  # it ran and its calls were spent: the answer must not say no cycle followed
        s.unusable_cycles.append(cycle)


def _session_stopped(s: e.ConversationSession, rec: r.SessionStopped | r.SessionResumed) -> None:
    """A stop keeps the session's status (``retry`` continues from exactly there); it only marks it stopped."""
    if s.status in e.TERMINAL:
        raise validation_error(f"a {s.status.value} session cannot be stopped or resumed", status=s.status.value)
    stopped = isinstance(rec, r.SessionStopped)
    if not stopped and not s.stopped:
        raise validation_error("the session is not stopped")
    s.stopped = stopped


def _evidence_gathered(s: e.ConversationSession, rec: r.EvidenceGathered) -> None:
    cycle, uses = rec.cycle, rec.uses
    if s.status.value in ("completed", "cancelled"):
        raise validation_error("evidence is gathered while the session runs", status=s.status.value)
    if cycle in s.evidence_rounds:
        raise validation_error("the evidence of that cycle was gathered already", cycle=cycle)
    if cycle > s.debate_cycles:
        raise validation_error("evidence answers the requests of a cycle that has run", cycle=cycle)
    known = {u.use_id for u in s.evidence}
    fresh = [u.use_id for u in uses]
    if len(set(fresh)) != len(fresh) or known & set(fresh):
        raise validation_error("every evidence use needs its own id", ids=fresh)
    if any(u.cycle != cycle for u in uses):
        raise validation_error("evidence uses belong to the record's cycle", cycle=cycle)
    s.evidence.extend(uses)
    s.evidence_rounds.append(cycle)


def _precedents_recalled(s: e.ConversationSession, rec: r.PrecedentsRecalled) -> None:
    if s.precedents:
        raise validation_error("past decisions were recalled already")
    if s.status.value != "created":
        raise validation_error("past decisions are recalled when the session starts", status=s.status.value)
    s.precedents = list(rec.precedents)


# --- clarification: rounds planned, questions weighed, asked one at a time, answered, skipped, deferred, revisited
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
        planned.times_asked += 1
        s.questions.append(planned)
    else:
        assert deferred is not None
        deferred.status = e.QuestionStatus.PENDING
        deferred.revisited = True
        deferred.times_asked += 1
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


def _by_record(*handlers: Callable[..., None]) -> dict[type, Callable[..., None]]:
    table: dict[type, Callable[..., None]] = {}
    for handler in handlers:
        hint = get_type_hints(handler)["rec"]
        table.update(dict.fromkeys(get_args(hint) or (hint,), handler))
    return table


_HANDLERS = _by_record(
    _personas_selected, _status_set, _questions_planned, _questions_dropped, _revisit_started, _question_asked,
    _question_answered, _question_skipped, _question_deferred, _cycle_started, _persona_spoke, _cycle_concluded,
    _options_set, _vote_cast, _conclusion_stated, _tally_set, _debate_extended, _synthesis_set, _model_used,
    _follow_up_answered, _debate_reopened, _cycle_dropped, _session_stopped, _evidence_gathered,
    _precedents_recalled, _seated, _seat_fell_back, _calls_planned,
)


def replay(journal: Iterable[r.RecordBase]) -> e.ConversationSession:
    session: e.ConversationSession | None = None
    for rec in journal:
        session = apply(session, rec)
    if session is None:
        raise validation_error("empty journal")
    return session

