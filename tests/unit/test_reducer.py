"""The reducer: every rule of change, applied record by record with fixed timestamps."""

from __future__ import annotations

import pytest
from unit_helpers import SID, Builder

from council.errors import CouncilError, ErrorCode
from council.session.state import records as r
from council.session.state.entities import (
    DiscussionStatus,
    MessageType,
    QuestionStatus,
    SessionSettings,
)
from council.session.state.entities import SessionStatus as S
from council.session.state.reducer import apply, replay


def refused(b: Builder, rec: r.RecordBase, match: str) -> CouncilError:
    """Apply ``rec``, expect a validation refusal and an untouched session; return the error."""
    before = b.s.model_dump()
    with pytest.raises(CouncilError, match=match) as info:
        apply(b.session, rec)
    assert info.value.code is ErrorCode.VALIDATION
    assert b.s.model_dump() == before
    return info.value


# --- creation -----------------------------------------------------------------------------------------------
def test_first_record_must_be_session_created(builder):
    with pytest.raises(CouncilError, match="session_created"):
        apply(None, r.StatusSet(at=builder.at(), status=S.CLARIFYING))


def test_session_created_twice_refused(builder):
    builder.create()
    rec = r.SessionCreated(
        at=builder.at(),
        session_id=SID,
        user=builder.user,
        moderator=builder.moderator,
        request_text="again",
        settings=SessionSettings(),
        correlation_id="c",
    )
    refused(builder, rec, "already created")


def test_created_session_fields(builder):
    s = builder.create(extended=True)
    assert s.status is S.CREATED and s.session_id == SID
    assert s.participants == [builder.user, builder.moderator]
    assert s.created_at == s.updated_at
    assert s.extended_debate_requested and s.metadata.correlation_id == "corr"


def test_apply_copies_the_record(builder):
    builder.create()
    rec = builder.plan_record(1)
    builder.status(S.CLARIFYING)
    builder.apply(rec)
    builder.ask("q1-1")
    assert (
        rec.questions[0].status is QuestionStatus.PENDING and builder.s.questions[0] is not rec.questions[0]
    )
    builder.answer("q1-1")
    assert rec.questions[0].user_answer is None  # the journal keeps the record as it was


def test_updated_at_follows_records(builder):
    builder.clarifying()
    rec = builder.ask_record("q1-1")
    builder.apply(rec)
    assert builder.s.updated_at == rec.at


# --- status -------------------------------------------------------------------------------------------------
def test_illegal_status_refused(builder):
    builder.create()
    err = refused(builder, r.StatusSet(at=builder.at(), status=S.COMPLETED), "illegal status transition")
    assert err.details["allowed"] == ["cancelled", "clarifying", "debating"]


def test_debating_needs_a_persona(builder):
    builder.create()
    refused(builder, r.StatusSet(at=builder.at(), status=S.DEBATING), "at least one persona")


def test_cannot_complete_without_final_answer(builder):
    builder.debating()
    builder.run_cycle(1)
    builder.status(S.FINAL)
    refused(builder, r.StatusSet(at=builder.at(), status=S.COMPLETED), "without a final answer")
    builder.synthesis()
    assert builder.status(S.COMPLETED).status is S.COMPLETED


def test_cannot_complete_without_message_turns(builder):
    builder.create()
    builder.select()
    builder.status(S.CLARIFYING)
    builder.status(S.FINAL)
    builder.synthesis()
    refused(builder, r.StatusSet(at=builder.at(), status=S.COMPLETED), "no message turns")


def test_synthesis_only_in_final(builder):
    builder.debating()
    rec = r.SynthesisSet(at=builder.at(), synthesis={"recommendation": "x"}, final_answer="x")
    refused(builder, rec, "final status")


def test_cancelled_refuses_everything_after(builder):
    builder.clarifying()
    builder.status(S.CANCELLED)
    for status in S:
        refused(builder, r.StatusSet(at=builder.at(), status=status), "illegal status transition")
    refused(builder, r.DebateExtended(at=builder.at()), "cancelled")
    refused(builder, builder.ask_record("q1-1"), "not allowed while the session is cancelled")


# --- clarification ------------------------------------------------------------------------------------------
def test_three_rounds_then_a_fourth_refused(builder):
    builder.clarifying()
    builder.plan(2, 1)
    builder.plan(3, 1)
    assert builder.s.planned_rounds == 3 and builder.s.clarification_rounds == 0  # planned, none completed
    err = refused(builder, builder.plan_record(3, 1).model_copy(update={"round": 4}), "capped at 3")
    assert err.details == {"round": 4, "cap": 3}


def test_rounds_must_be_consecutive(builder):
    builder.clarifying()
    refused(builder, builder.plan_record(3, 1), "capped")
    refused(builder, builder.plan_record(1, 1), "capped")


def test_planned_questions_must_belong_to_the_round(builder):
    builder.clarifying()
    rec = builder.plan_record(2, 1)
    rec.questions[0] = builder.question(1, 9)
    refused(builder, rec, "new round")


def test_ask_moves_question_from_planned_to_active(builder):
    builder.clarifying()
    s = builder.ask("q1-1")
    assert s.active_question is not None and s.active_question.question_id == "q1-1"
    assert [q.question_id for q in s.planned_questions] == ["q1-2"]
    assert s.message_turns[-1].message_type is MessageType.QUESTION
    assert s.message_turns[-1].sequence_number == 1


def test_exactly_one_active_question(builder):
    builder.clarifying()
    builder.ask("q1-1")
    err = refused(builder, builder.ask_record("q1-2"), "exactly one question")
    assert err.details["activeQuestionId"] == "q1-1"


def test_asking_unknown_question_refused(builder):
    builder.clarifying()
    refused(builder, builder.ask_record("nope"), "no such planned or deferred question")


def test_asking_an_answered_question_again_refused(builder):
    builder.clarifying()
    builder.ask("q1-1")
    builder.answer("q1-1")
    refused(builder, builder.ask_record("q1-1"), "no such planned or deferred")


def test_answer_records_answer_and_turn(builder):
    builder.clarifying()
    builder.ask("q1-1")
    s = builder.answer("q1-1", "billing only")
    q = s.question("q1-1")
    assert q.status is QuestionStatus.ANSWERED and q.user_answer.answer == "billing only"
    assert q.answered_at is not None and s.active_question is None
    assert [t.message_type for t in s.message_turns] == [MessageType.QUESTION, MessageType.ANSWER]


def test_answering_a_planned_not_asked_question_refused(builder):
    builder.clarifying()
    builder.ask("q1-1")
    refused(builder, builder.answer_record("q1-2"), "not open")


def test_answering_an_answered_question_refused(builder):
    builder.clarifying()
    builder.ask("q1-1")
    builder.answer("q1-1")
    refused(builder, builder.answer_record("q1-1"), "not open")


def test_answering_a_deferred_question_refused(builder):
    builder.clarifying()
    builder.ask("q1-1")
    builder.defer("q1-1")
    refused(builder, builder.answer_record("q1-1"), "only the active question")


def test_answer_must_come_from_the_user(builder):
    builder.clarifying()
    builder.ask("q1-1")
    refused(builder, builder.answer_record("q1-1", sender=builder.moderator), "answers come from the user")


def test_answer_record_needs_an_answer_turn(builder):
    builder.clarifying()
    builder.ask("q1-1")
    refused(
        builder, builder.answer_record("q1-1", sender=builder.moderator, kind=MessageType.QUESTION), "answer"
    )


def test_skip_creates_assumption_and_statement(builder):
    builder.clarifying()
    builder.ask("q1-1")
    s = builder.skip("q1-1")
    q = s.question("q1-1")
    assert q.status is QuestionStatus.SKIPPED and q.user_answer.skip_command
    assert [a.related_question_id for a in s.assumption_log] == ["q1-1"]
    assert s.message_turns[-1].message_type is MessageType.ASSUMPTION_STATEMENT
    assert s.message_turns[-1].sender.participant_id == "mod"
    assert s.active_question is None


def test_skip_of_planned_question_moves_it(builder):
    """skip all: questions of the round not asked yet are skipped too."""
    builder.clarifying()
    builder.ask("q1-1")
    builder.skip("q1-1")
    s = builder.skip("q1-2")
    assert s.planned_questions == []
    assert [q.status for q in s.questions] == [QuestionStatus.SKIPPED] * 2
    assert len(s.assumption_log) == 2


def test_skipping_twice_refused(builder):
    builder.clarifying()
    builder.ask("q1-1")
    builder.skip("q1-1")
    refused(builder, builder.skip_record("q1-1"), "not open")


def test_deferred_question_can_be_asked_again(builder):
    builder.clarifying()
    builder.ask("q1-1")
    s = builder.defer("q1-1")
    assert s.question("q1-1").status is QuestionStatus.DEFERRED and s.active_question is None
    s = builder.ask("q1-1")
    q = s.question("q1-1")
    assert q.status is QuestionStatus.PENDING and q.revisited
    assert len(s.questions) == 1  # the same question, not a copy


def test_deferring_a_non_active_question_refused(builder):
    builder.clarifying()
    refused(builder, r.QuestionDeferred(at=builder.at(), question_id="q1-1"), "not open")
    builder.ask("q1-1")
    builder.defer("q1-1")
    refused(builder, r.QuestionDeferred(at=builder.at(), question_id="q1-1"), "only the active question")


# --- message turns ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seq", [2, 5])
def test_sequence_gap_refused(builder, seq):
    builder.clarifying()
    err = refused(builder, builder.ask_record("q1-1", seq=seq), "out of sequence")
    assert err.details == {"expected": 1, "got": seq}


def test_sequence_repeat_refused(builder):
    builder.clarifying()
    builder.ask("q1-1")
    refused(builder, builder.answer_record("q1-1", seq=1), "out of sequence")


def test_sequence_numbers_strictly_increase_over_a_session(builder):
    builder.completed(cycles=2)
    seqs = [t.sequence_number for t in builder.s.message_turns]
    assert seqs == list(range(1, len(seqs) + 1))


def test_question_turn_only_while_clarifying(builder):
    builder.create()
    builder.select()
    builder.apply(builder.plan_record(1))  # planning before the status change is tolerated
    refused(builder, builder.ask_record("q1-1"), "not allowed while the session is created")


def test_discussion_only_while_debating(builder):
    builder.debating()
    builder.start_cycle(1)
    builder.speak("Alpha", 1)
    builder.status(S.CANCELLED)
    refused(
        builder,
        builder.speak_record("Beta", 1),
        "discussion turn is not allowed while the session is cancelled",
    )


def test_discussion_must_come_from_a_persona(builder):
    builder.debating()
    builder.start_cycle(1)
    refused(builder, builder.speak_record("Alpha", 1, sender=builder.moderator), "come from personas")


def test_persona_contribution_must_be_discussion(builder):
    builder.debating()
    builder.start_cycle(1)
    refused(builder, builder.speak_record("Alpha", 1, kind=MessageType.CONCLUSION), "discussion turn")


def test_speaking_needs_a_cycle_in_progress(builder):
    builder.debating()
    refused(builder, builder.speak_record("Alpha", 1), "no debate cycle")
    builder.run_cycle(1)
    refused(builder, builder.speak_record("Alpha", 1), "no debate cycle")


def test_response_for_another_cycle_refused(builder):
    builder.debating()
    builder.start_cycle(1)
    refused(builder, builder.speak_record("Alpha", 2), "another cycle")


def test_persona_spoke_links_turn_to_discussion(builder):
    builder.debating()
    builder.start_cycle(1)
    s = builder.speak("Alpha", 1)
    assert s.discussions[0].message_turn_ids == [s.message_turns[-1].turn_id]
    assert s.responses[-1].turn_id == s.message_turns[-1].turn_id


# --- debate cycles ------------------------------------------------------------------------------------------
def test_cycles_only_while_debating(builder):
    builder.clarifying()
    refused(builder, builder.cycle_record(1), "only while debating")


def test_cycles_numbered_consecutively(builder):
    builder.debating()
    refused(builder, builder.cycle_record(2), "consecutively")
    builder.run_cycle(1)
    refused(builder, builder.cycle_record(1), "consecutively")
    refused(builder, builder.cycle_record(3), "consecutively")
    assert builder.start_cycle(2).debate_cycles == 2


def test_next_cycle_refused_while_previous_in_progress(builder):
    builder.debating()
    builder.start_cycle(1)
    builder.speak("Alpha", 1)
    refused(builder, builder.cycle_record(2), "in progress")


def test_default_cap_is_ten_cycles():
    b = Builder()
    b.debating()
    for n in range(1, 11):
        b.run_cycle(n)
    err = refused(b, b.cycle_record(11), "capped at 10")
    assert err.details == {"limit": 10}


def test_extension_raises_the_cap_up_to_extended_max():
    b = Builder(SessionSettings(max_cycles=2, extended_max_cycles=4))
    b.debating()
    b.run_cycle(1)
    b.run_cycle(2, DiscussionStatus.LIMIT_REACHED)
    refused(b, b.cycle_record(3), "capped at 2")
    b.apply(r.DebateExtended(at=b.at()))
    assert b.s.extended_debate_requested and b.s.cycle_limit == 4
    b.run_cycle(3)
    b.run_cycle(4)
    refused(b, b.cycle_record(5), "capped at 4")
    refused(b, r.DebateExtended(at=b.at()), "already extended")


def test_conclude_needs_a_summary(builder):
    builder.debating()
    builder.start_cycle(1)
    rec = r.CycleConcluded(at=builder.at(), cycle=1, resolution_summary="", status=DiscussionStatus.CONCLUDED)
    refused(builder, rec, "resolution summary")


def test_conclude_cannot_leave_cycle_in_progress(builder):
    builder.debating()
    builder.start_cycle(1)
    rec = r.CycleConcluded(
        at=builder.at(), cycle=1, resolution_summary="x", status=DiscussionStatus.IN_PROGRESS
    )
    refused(builder, rec, "cannot be in progress")


def test_conclude_wrong_or_finished_cycle_refused(builder):
    builder.debating()
    builder.start_cycle(1)
    refused(
        builder,
        r.CycleConcluded(at=builder.at(), cycle=2, resolution_summary="x", status=DiscussionStatus.CONCLUDED),
        "no such cycle",
    )
    s = builder.conclude(1, "done")
    assert s.discussions[0].exchange_ends is not None and s.discussions[0].resolution_summary == "done"
    refused(
        builder,
        r.CycleConcluded(at=builder.at(), cycle=1, resolution_summary="x", status=DiscussionStatus.CONCLUDED),
        "already concluded",
    )


def test_completed_back_to_debating_refused_at_limit_until_extended():
    b = Builder(SessionSettings(max_cycles=1, extended_max_cycles=3))
    b.completed(cycles=1)
    refused(b, r.StatusSet(at=b.at(), status=S.DEBATING), "cycle limit")
    b.apply(r.DebateExtended(at=b.at()))
    assert b.status(S.DEBATING).status is S.DEBATING
    assert b.start_cycle(2).debate_cycles == 2


# --- votes --------------------------------------------------------------------------------------------------
def test_vote_rules(builder):
    builder.debating()
    builder.run_cycle(1)
    refused(
        builder,
        r.OptionsSet(at=builder.at(), options=[{"id": "A", "label": "a", "description": "d"}]),
        "two options",
    )
    builder.options()
    refused(builder, builder.vote_record("Alpha", "Z", 1), "unknown option")
    refused(builder, builder.vote_record("Alpha", "A", 2), "current cycle")
    refused(builder, builder.vote_record("Alpha", "A", 0), "current cycle")
    refused(builder, builder.vote_record("Stranger", "A", 1), "only council personas vote")
    s = builder.vote("Alpha", "A", 1)
    assert len(s.votes) == 1 and s.votes[0].cycle == 1
    assert not any(t.message_type is MessageType.CONCLUSION for t in s.message_turns)  # a vote has no turn
    refused(builder, builder.vote_record("Alpha", "B", 1), "one vote per persona per round")
    assert len(builder.vote("Beta", "B", 1).votes) == 2


def test_vote_only_while_debating(builder):
    builder.debating()
    builder.run_cycle(1)
    builder.options()
    builder.status(S.CANCELLED)
    refused(builder, builder.vote_record("Alpha", "A", 1), "votes are cast while debating")


def test_vote_refused_before_options(builder):
    builder.debating()
    builder.start_cycle(1)
    refused(builder, builder.vote_record("Alpha", "A", 1), "unknown option")


def test_one_vote_per_persona_per_round_across_rounds(builder):
    builder.debating()
    builder.start_cycle(1)
    builder.options()
    builder.vote("Alpha", "A", 1)  # the first vote is cast while cycle 1 is still open
    builder.conclude(1)
    builder.start_cycle(2)
    s = builder.vote("Alpha", "B", 2)  # a new round: a new vote
    assert [(v.cycle, v.option_id) for v in s.votes] == [(1, "A"), (2, "B")]
    refused(builder, builder.vote_record("Alpha", "A", 1), "current cycle")  # no late votes for round 1


def test_conclusion_rules(builder):
    builder.debating()
    builder.start_cycle(1)
    builder.speak("Alpha", 1)
    refused(builder, builder.conclusion_record("Alpha", 1), "after the debate cycles")
    builder.conclude(1)
    refused(builder, builder.conclusion_record("Alpha", 1, sender=builder.moderator), "council.s personas")
    refused(
        builder, builder.conclusion_record("Alpha", 1, kind=MessageType.DISCUSSION), "needs a conclusion turn"
    )
    refused(builder, builder.conclusion_record("Alpha", 1).model_copy(update={"turn": builder.turn(
        builder.persona("Alpha"), MessageType.CONCLUSION, seq=99)}), "out of sequence")
    s = builder.state_conclusion("Alpha", 1)
    assert s.message_turns[-1].message_type is MessageType.CONCLUSION
    assert s.message_turns[-1].sender.name == "Alpha"
    builder.status(S.FINAL)
    refused(builder, builder.conclusion_record("Beta", 1), "not allowed while the session is final")


def test_model_used_accumulates(builder):
    builder.create()
    builder.apply(r.ModelUsed(at=builder.at(), role="Alpha", provider="p", model="m", latency_ms=10))
    s = builder.apply(
        r.ModelUsed(at=builder.at(), role="Alpha", provider="p", model="m2", failed=True, latency_ms=5)
    )
    use = s.metadata.models["Alpha"]
    assert (use.model, use.calls, use.failures) == ("m2", 2, 1)
    assert s.metadata.timings_ms["Alpha"] == 15


def test_personas_selected_once(builder):
    builder.create()
    s = builder.select()
    assert [p.name for p in s.personas] == ["Alpha", "Beta"]
    refused(builder, r.PersonasSelected(at=builder.at(), selection=s.persona_selection), "already selected")


# --- replay -------------------------------------------------------------------------------------------------
def test_replay_of_hand_built_journal(builder):
    builder.clarifying()
    builder.ask("q1-1")
    builder.defer("q1-1")
    builder.ask("q1-1")
    builder.skip("q1-1")
    builder.ask("q1-2")
    builder.answer("q1-2")
    builder.status(S.DEBATING)
    builder.start_cycle(1)
    builder.speak("Alpha", 1)
    builder.speak("Beta", 1)
    builder.options()
    builder.vote("Alpha", "A", 1)
    builder.vote("Beta", "B", 1)
    builder.conclude(1)
    builder.start_cycle(2)
    builder.speak("Alpha", 2)
    builder.speak("Beta", 2, changed_position=True, change_reason="new data")
    builder.vote("Alpha", "A", 2)
    builder.vote("Beta", "A", 2)
    builder.conclude(2)
    builder.state_conclusion("Alpha", 2)
    builder.state_conclusion("Beta", 2)
    assert builder.tally().tally.counts == {"A": 2, "B": 0}  # round 2 only
    builder.status(S.FINAL)
    builder.synthesis()
    builder.status(S.COMPLETED)
    assert replay(builder.journal) == builder.s
    assert replay(r.journal_adapter.validate_json(r.journal_adapter.dump_json(builder.journal))) == builder.s


def test_replay_of_empty_journal_refused():
    with pytest.raises(CouncilError, match="empty journal"):
        replay([])


def test_replay_stops_at_a_bad_record(builder):
    builder.clarifying()
    journal = [*builder.journal, builder.ask_record("q1-1", seq=3)]
    with pytest.raises(CouncilError, match="out of sequence"):
        replay(journal)


# --- replay of real sessions (CouncilService + scripted provider) -------------------------------------------
async def _full_session(make_service):
    from council.protocol.methods import AnswerParams, TurnParams

    h = make_service()
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?"))
    res = await h.service.answer(
        AnswerParams(
            session_id=res.session_id,
            question_id=res.question.question_id,
            choice=res.question.choices[0].value,
            idempotency_key="k1",
        )
    )
    res = await h.service.turn(TurnParams(session_id=res.session_id, text="skip"))
    assert res.status is S.COMPLETED
    return h.runtime(res.session_id)


async def test_replay_equals_completed_service_session(make_service):
    rt = await _full_session(make_service)
    assert replay(rt.journal) == rt.session
    kinds = {rec.kind for rec in rt.journal}
    assert {
        "question_answered",
        "question_skipped",
        "persona_spoke",
        "vote_cast",
        "conclusion_stated",
        "tally_set",
        "synthesis_set",
    } <= kinds


async def test_journal_json_round_trip_replays_equal(make_service):
    rt = await _full_session(make_service)
    raw = r.journal_adapter.dump_json(rt.journal)
    back = r.journal_adapter.validate_json(raw)
    assert [type(x) for x in back] == [type(x) for x in rt.journal]
    assert back == rt.journal
    assert replay(back) == rt.session
    assert replay(back).model_dump_json() == rt.session.model_dump_json()


async def test_replay_equals_cancelled_service_session(make_service):
    from council.protocol.methods import TurnParams

    h = make_service()
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?"))
    await h.service.turn(TurnParams(session_id=res.session_id, text="skip"))
    done = await h.service.turn(TurnParams(session_id=res.session_id, text="cancel"))
    assert done.status is S.CANCELLED
    rt = h.runtime(res.session_id)
    assert replay(rt.journal) == rt.session
    assert replay(r.journal_adapter.validate_json(r.journal_adapter.dump_json(rt.journal))) == rt.session


def test_replay_is_not_fooled_by_a_mutated_journal(builder):
    builder.clarifying()
    builder.ask("q1-1")
    builder.answer("q1-1", "billing")
    journal = r.journal_adapter.validate_python([rec.model_dump() for rec in builder.journal])
    journal[-1].answer.answer = "payroll"
    assert replay(journal) != builder.s
