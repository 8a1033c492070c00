"""Applies journal records to a ConversationSession, enforcing the data model's rules; replays a journal.

``apply`` validates first and mutates second, so a refused record leaves the session untouched. Every rule of
seed 002 that concerns change lives here: the transition table, the round and cycle caps, one active question,
strictly increasing turn sequence numbers, message types aligned with the session status.
"""

from __future__ import annotations

from collections.abc import Iterable

from council.errors import validation_error
from council.session import records as r
from council.session.entities import (
    MAX_CLARIFICATION_ROUNDS,
    MAX_TOTAL_CYCLES,
    REOPEN_CYCLES,
    ConversationSession,
    DiscussionStatus,
    MessageTurn,
    MessageType,
    ModelUse,
    ParticipantType,
    QuestionStatus,
    SessionMetadata,
)
from council.session.entities import SessionStatus as S
from council.session.grounds import apply_evidence, apply_precedents
from council.session.pause import drop_cycle, set_stopped
from council.session.sharing import share_fields_sets
from council.session.spend import SPEND_RECORDS, apply_spend, count_call
from council.session.transitions import check_transition

# Which statuses each message type may be written in (seed 002, MessageTurn validation).
TURN_STATUSES: dict[MessageType, frozenset[S]] = {
    MessageType.QUESTION: frozenset({S.CLARIFYING}),
    MessageType.ANSWER: frozenset({S.CLARIFYING}),
    MessageType.ASSUMPTION_STATEMENT: frozenset({S.CLARIFYING}),
    MessageType.DISCUSSION: frozenset({S.DEBATING}),
    MessageType.CONCLUSION: frozenset({S.DEBATING}),
}


def _check_turn(session: ConversationSession, turn: MessageTurn, kind: MessageType | None = None) -> None:
    if kind is not None and turn.message_type is not kind:
        raise validation_error(f"this record needs a {kind.value} turn", got=turn.message_type.value)
    last = session.message_turns[-1].sequence_number if session.message_turns else 0
    if turn.sequence_number != last + 1:
        raise validation_error("message turn out of sequence", expected=last + 1, got=turn.sequence_number)
    if session.status not in TURN_STATUSES[turn.message_type]:
        raise validation_error(
            f"a {turn.message_type.value} turn is not allowed while the session is {session.status.value}",
            messageType=turn.message_type.value, status=session.status.value,
        )
    if turn.message_type is MessageType.ANSWER and turn.sender.type is not ParticipantType.USER:
        raise validation_error("answers come from the user")
    if turn.message_type is MessageType.DISCUSSION and turn.sender.type is not ParticipantType.PERSONA:
        raise validation_error("discussion turns come from personas")


def _touch(session: ConversationSession, rec: r.RecordBase, turn: MessageTurn | None = None) -> None:
    if turn is not None:
        session.message_turns.append(turn)
    session.updated_at = rec.at


def _created(session: ConversationSession | None, rec: r.SessionCreated) -> ConversationSession:
    if session is not None:
        raise validation_error("session already created")
    return ConversationSession(
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
        metadata=SessionMetadata(correlation_id=rec.correlation_id, context=rec.context_names),
    )


def apply(session: ConversationSession | None, rec: r.RecordBase) -> ConversationSession:
    """Apply one record; raise a validation CouncilError (leaving the session unchanged) if it breaks a rule.

    The session shares the record's objects (a persona's response, a vote, a turn) instead of copying them: none
    of them changes after it is recorded. The two the session does change later — a cycle's discussion and planned
    questions — are copied as they are applied, so the journal keeps every record as it was.
    """
    if isinstance(rec, r.SessionCreated):
        return _created(session, rec)
    if session is None:
        raise validation_error("the first record must be session_created")
    handler = _HANDLERS[type(rec)]
    handler(session, rec)
    share_fields_sets(rec)
    return session


def _personas_selected(s: ConversationSession, rec: r.PersonasSelected) -> None:
    if s.persona_selection is not None:
        raise validation_error("personas already selected")
    s.persona_selection = rec.selection
    s.participants.extend(rec.selection.selected_personas)
    _touch(s, rec)


def _status_set(s: ConversationSession, rec: r.StatusSet) -> None:
    check_transition(s.status, rec.status)
    if rec.status is S.DEBATING and not s.personas:
        raise validation_error("participants must include at least one persona before debating")
    if rec.status is S.COMPLETED:
        if not s.final_answer:
            raise validation_error("cannot complete without a final answer")
        if not s.message_turns:
            raise validation_error("cannot complete a session with no message turns")
    if s.status is S.COMPLETED and rec.status is S.DEBATING and s.debate_cycles >= s.cycle_limit:
        raise validation_error("the debate is at its cycle limit; extend it first", limit=s.cycle_limit)
    s.status = rec.status
    s.stopped = s.stopped and rec.status is not S.CANCELLED  # a cancelled session is over, not paused
    _touch(s, rec)


def _questions_planned(s: ConversationSession, rec: r.QuestionsPlanned) -> None:
    if rec.round != s.clarification_rounds + 1 or rec.round > MAX_CLARIFICATION_ROUNDS:
        raise validation_error(
            f"clarification rounds are capped at {MAX_CLARIFICATION_ROUNDS}",
            round=rec.round, cap=MAX_CLARIFICATION_ROUNDS,
        )
    if any(q.round_number != rec.round for q in rec.questions):
        raise validation_error("planned questions must belong to the new round")
    s.clarification_rounds = rec.round
    s.planned_questions.extend(q.model_copy(deep=True) for q in rec.questions)  # their status changes later
    _touch(s, rec)


def _question_asked(s: ConversationSession, rec: r.QuestionAsked) -> None:
    if s.active_question is not None:
        raise validation_error("exactly one question may be active at a time",
                               activeQuestionId=s.active_question.question_id)
    planned = next((q for q in s.planned_questions if q.question_id == rec.question_id), None)
    deferred = s.question(rec.question_id)
    if planned is None and (deferred is None or deferred.status is not QuestionStatus.DEFERRED):
        raise validation_error("no such planned or deferred question", questionId=rec.question_id)
    _check_turn(s, rec.turn, MessageType.QUESTION)
    if planned is not None:
        s.planned_questions.remove(planned)
        planned.status = QuestionStatus.PENDING
        s.questions.append(planned)
    else:
        assert deferred is not None
        deferred.status = QuestionStatus.PENDING
        deferred.revisited = True
    _touch(s, rec, rec.turn)


def _resolve_target(s: ConversationSession, question_id: str, *, allow_planned: bool):
    q = s.question(question_id)
    if q is not None and q.status in (QuestionStatus.PENDING, QuestionStatus.DEFERRED):
        return q, False
    if allow_planned:
        planned = next((p for p in s.planned_questions if p.question_id == question_id), None)
        if planned is not None:
            return planned, True
    raise validation_error("question is not open", questionId=question_id,
                           status=q.status.value if q else "unknown")


def _question_answered(s: ConversationSession, rec: r.QuestionAnswered) -> None:
    q, _ = _resolve_target(s, rec.answer.question_id, allow_planned=False)
    if q.status is not QuestionStatus.PENDING:
        raise validation_error("only the active question can be answered", questionId=q.question_id)
    _check_turn(s, rec.turn, MessageType.ANSWER)
    q.user_answer = rec.answer
    q.status = QuestionStatus.ANSWERED
    q.answered_at = rec.at
    _touch(s, rec, rec.turn)


def _question_skipped(s: ConversationSession, rec: r.QuestionSkipped) -> None:
    q, planned = _resolve_target(s, rec.answer.question_id, allow_planned=True)
    _check_turn(s, rec.turn, MessageType.ASSUMPTION_STATEMENT)
    if planned:
        s.planned_questions.remove(q)
        s.questions.append(q)
    q.user_answer = rec.answer
    q.status = QuestionStatus.SKIPPED
    q.answered_at = rec.at
    s.assumption_log.append(rec.assumption)
    _touch(s, rec, rec.turn)


def _question_deferred(s: ConversationSession, rec: r.QuestionDeferred) -> None:
    q, _ = _resolve_target(s, rec.question_id, allow_planned=False)
    if q.status is not QuestionStatus.PENDING:
        raise validation_error("only the active question can be deferred", questionId=q.question_id)
    q.status = QuestionStatus.DEFERRED
    _touch(s, rec)


def _cycle_started(s: ConversationSession, rec: r.CycleStarted) -> None:
    d = rec.discussion.model_copy(update={"message_turn_ids": list(rec.discussion.message_turn_ids)})  # filled
    # in later: its turns (this list), status and convergence (reassigned on the copy only)
    if s.status is not S.DEBATING:
        raise validation_error("cycles run only while debating", status=s.status.value)
    if d.cycle_number != s.debate_cycles + 1:
        raise validation_error("debate cycles are numbered consecutively", expected=s.debate_cycles + 1)
    if d.cycle_number > s.cycle_limit:
        raise validation_error(f"debate cycles are capped at {s.cycle_limit}", limit=s.cycle_limit)
    if s.discussions and s.discussions[-1].status is DiscussionStatus.IN_PROGRESS:
        raise validation_error("the previous cycle is still in progress")
    s.discussions.append(d)
    s.debate_cycles = d.cycle_number
    _touch(s, rec)


def _persona_spoke(s: ConversationSession, rec: r.PersonaSpoke) -> None:
    if not s.discussions or s.discussions[-1].status is not DiscussionStatus.IN_PROGRESS:
        raise validation_error("no debate cycle is in progress")
    d = s.discussions[-1]
    if rec.response.cycle != d.cycle_number:
        raise validation_error("response belongs to another cycle", cycle=rec.response.cycle)
    if rec.turn.message_type is not MessageType.DISCUSSION:
        raise validation_error("a persona's cycle contribution is a discussion turn")
    _check_turn(s, rec.turn)
    d.message_turn_ids.append(rec.turn.turn_id)
    s.responses.append(rec.response)
    _touch(s, rec, rec.turn)


def _cycle_concluded(s: ConversationSession, rec: r.CycleConcluded) -> None:
    if not s.discussions or s.discussions[-1].cycle_number != rec.cycle:
        raise validation_error("no such cycle in progress", cycle=rec.cycle)
    d = s.discussions[-1]
    if d.status is not DiscussionStatus.IN_PROGRESS:
        raise validation_error("cycle already concluded", cycle=rec.cycle)
    if not rec.resolution_summary:
        raise validation_error("a resolution summary is required to conclude a cycle")
    if rec.status is DiscussionStatus.IN_PROGRESS:
        raise validation_error("a concluded cycle cannot be in progress")
    d.resolution_summary = rec.resolution_summary
    d.status = rec.status
    d.convergence = rec.convergence
    d.stop_reason = rec.stop_reason
    d.exchange_ends = rec.at
    _touch(s, rec)


def _options_set(s: ConversationSession, rec: r.OptionsSet) -> None:
    if len(rec.options) < 2:
        raise validation_error("a vote needs at least two options")
    s.options = rec.options
    _touch(s, rec)


def _vote_cast(s: ConversationSession, rec: r.VoteCast) -> None:
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
    _touch(s, rec)


def _conclusion_stated(s: ConversationSession, rec: r.ConclusionStated) -> None:
    if rec.turn.sender.type is not ParticipantType.PERSONA or s.participant(rec.turn.sender.name) is None:
        raise validation_error("conclusions come from the council's personas")
    if s.discussions and s.discussions[-1].status is DiscussionStatus.IN_PROGRESS:
        raise validation_error("conclusions come after the debate cycles")
    _check_turn(s, rec.turn, MessageType.CONCLUSION)
    _touch(s, rec, rec.turn)


def _tally_set(s: ConversationSession, rec: r.TallySet) -> None:
    s.tally = rec.tally
    _touch(s, rec)


def _debate_extended(s: ConversationSession, rec: r.DebateExtended) -> None:
    if s.status is S.CANCELLED:
        raise validation_error("the session is cancelled")
    if s.extended_debate_requested:
        raise validation_error("the debate is already extended", limit=s.cycle_limit)
    s.extended_debate_requested = True
    _touch(s, rec)


def _synthesis_set(s: ConversationSession, rec: r.SynthesisSet) -> None:
    if s.status is not S.FINAL:
        raise validation_error("the final answer is written in the final status", status=s.status.value)
    s.synthesis = rec.synthesis
    s.final_answer = rec.final_answer
    _touch(s, rec)


def _follow_up_answered(s: ConversationSession, rec: r.FollowUpAnswered) -> None:
    if s.status is not S.COMPLETED:
        raise validation_error("follow-up questions are answered once the session is completed",
                               status=s.status.value)
    if rec.follow_up.session_id != s.session_id:
        raise validation_error("the follow-up belongs to another session", sessionId=rec.follow_up.session_id)
    s.follow_ups.append(rec.follow_up)
    _touch(s, rec)


def _debate_reopened(s: ConversationSession, rec: r.DebateReopened) -> None:
    if s.status is not S.COMPLETED:
        raise validation_error("only a completed debate can be re-opened", status=s.status.value)
    if rec.input.session_id != s.session_id:
        raise validation_error("the input belongs to another session", sessionId=rec.input.session_id)
    if s.debate_cycles >= MAX_TOTAL_CYCLES:
        raise validation_error(f"the debate has run its maximum of {MAX_TOTAL_CYCLES} cycles", cap=MAX_TOTAL_CYCLES)
    s.user_inputs.append(rec.input)
    s.reopened_cycle_limit = min(s.debate_cycles + REOPEN_CYCLES, MAX_TOTAL_CYCLES)
    _touch(s, rec)


def _model_used(s: ConversationSession, rec: r.ModelUsed) -> None:
    use = s.metadata.models.get(rec.role) or ModelUse(provider=rec.provider, model=rec.model)
    use.provider, use.model = rec.provider, rec.model
    use.calls += 1
    use.failures += int(rec.failed)
    s.metadata.models[rec.role] = use
    s.metadata.timings_ms[rec.role] = s.metadata.timings_ms.get(rec.role, 0.0) + rec.latency_ms
    count_call(s, rec)
    _touch(s, rec)


def _spend(s: ConversationSession, rec: r.SeatingDecided | r.SeatFellBack | r.CallsPlanned) -> None:
    apply_spend(s, rec)
    _touch(s, rec)


def _cycle_dropped(s: ConversationSession, rec: r.CycleDropped) -> None:
    drop_cycle(s, rec.cycle)
    _touch(s, rec)


def _session_stopped(s: ConversationSession, rec: r.SessionStopped | r.SessionResumed) -> None:
    set_stopped(s, isinstance(rec, r.SessionStopped))
    _touch(s, rec)


def _evidence_gathered(s: ConversationSession, rec: r.EvidenceGathered) -> None:
    apply_evidence(s, rec.cycle, rec.uses)
    _touch(s, rec)


def _precedents_recalled(s: ConversationSession, rec: r.PrecedentsRecalled) -> None:
    apply_precedents(s, rec.precedents)
    _touch(s, rec)


_HANDLERS = {
    r.PersonasSelected: _personas_selected,
    r.StatusSet: _status_set,
    r.QuestionsPlanned: _questions_planned,
    r.QuestionAsked: _question_asked,
    r.QuestionAnswered: _question_answered,
    r.QuestionSkipped: _question_skipped,
    r.QuestionDeferred: _question_deferred,
    r.CycleStarted: _cycle_started,
    r.PersonaSpoke: _persona_spoke,
    r.CycleConcluded: _cycle_concluded,
    r.OptionsSet: _options_set,
    r.VoteCast: _vote_cast,
    r.ConclusionStated: _conclusion_stated,
    r.TallySet: _tally_set,
    r.DebateExtended: _debate_extended,
    r.SynthesisSet: _synthesis_set,
    r.ModelUsed: _model_used,
    r.FollowUpAnswered: _follow_up_answered,
    r.DebateReopened: _debate_reopened,
    r.CycleDropped: _cycle_dropped,
    r.SessionStopped: _session_stopped,
    r.SessionResumed: _session_stopped,
    r.EvidenceGathered: _evidence_gathered,
    r.PrecedentsRecalled: _precedents_recalled,
    **{cls: _spend for cls in SPEND_RECORDS},
}


def replay(journal: Iterable[r.RecordBase]) -> ConversationSession:
    """Rebuild a session from its journal."""
    session: ConversationSession | None = None
    for rec in journal:
        session = apply(session, rec)
    if session is None:
        raise validation_error("empty journal")
    return session
