"""Revisiting a skipped or deferred question after the answer (seed 002's ``deferred``, issue 20): the question is
asked again, its answer replaces the assumption, only a new vote round and the answer run (not the debate from
scratch), and the new answer says what changed; skipped again, the answer stands and nothing runs."""

from __future__ import annotations

import pytest
from unit_helpers import first_vote_rules, persona_reply, rule

from council.errors import CouncilError, ErrorCode
from council.protocol.methods import Awaiting, Intent, SessionOptions, TurnCommand, TurnParams
from council.session.state.entities import QuestionStatus
from council.session.state.entities import SessionStatus as S
from council.session.state.reducer import replay

PROBLEM = "Should we split our monolith into services this quarter?"
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
ANSWER = "This year"  # the timeline question's answer, which moves everyone to option B in the revisit round


def script() -> dict:
    """Cycle 1: everyone recommends A (the council agrees at once). A cycle that sees the answer "This year" moves
    every vote to B."""
    later = [rule("PersonaReply", persona_reply(2, option="B", changed=True, change_reason="the answer changes it",
                                                who=name), purpose=name, contains=ANSWER) for name in COUNCIL]
    return {"rules": [*first_vote_rules(**{name: ("A", 0.9) for name in COUNCIL}), *later]}


async def skipped_session(h):
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=COUNCIL)))
    sid = res.session_id
    done = await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.SKIP_ALL))
    assert done.status is S.COMPLETED
    return sid, h.runtime(sid).session


async def test_revisit_asks_again_replaces_the_assumption_and_reruns_one_vote_round(make_service):
    h = make_service(script())
    sid, s = await skipped_session(h)
    timeline = next(q for q in s.questions if "timeline" in q.question)
    cycles, winner = s.debate_cycles, s.tally.winner
    assert winner == "A" and len(s.assumption_log) == 2
    res = await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT,
                                          question_id=timeline.question_id))
    assert res.intent is Intent.REVISIT and res.status is S.CLARIFYING and res.awaiting is Awaiting.ANSWER
    assert res.question.question_id == timeline.question_id
    asked = h.of(sid, "question.asked")[-1]
    assert asked["revisit"] and "asks again" in asked["markdown"]
    calls = s.metadata.calls
    done = await h.service.turn(TurnParams(session_id=sid, text=ANSWER))
    assert done.status is S.COMPLETED
    assert s.debate_cycles == cycles + 1  # one more round, not the debate from scratch
    assert s.metadata.calls - calls == len(COUNCIL) + 1  # a vote per persona and the chair; no options, no clarifier
    assert timeline.status is QuestionStatus.ANSWERED and timeline.user_answer.answer == ANSWER
    assert [a.related_question_id for a in s.assumption_log] == [
        q.question_id for q in s.questions if q.question_id != timeline.question_id]
    assert s.tally.winner == "B" and s.revisits[-1].settled and s.revisits[-1].answer == ANSWER
    assert "**Revisited:**" in done.final_answer and "moved from **A · " in done.final_answer
    assert "3 advisors changed their vote" in done.final_answer
    assert "(the council had assumed: " in done.final_answer and ".)." not in done.final_answer  # one full stop
    assert replay(h.runtime(sid).journal).model_dump() == s.model_dump()


async def test_revisit_skipped_again_keeps_the_answer_and_runs_nothing(make_service):
    h = make_service(script())
    sid, s = await skipped_session(h)
    q = s.questions[0]
    answer, calls, assumptions = s.final_answer, s.metadata.calls, list(s.assumption_log)
    await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT, question_id=q.question_id))
    res = await h.service.turn(TurnParams(session_id=sid, text="skip"))
    assert res.status is S.COMPLETED and "stand" in res.message
    assert s.final_answer == answer and s.metadata.calls == calls and s.assumption_log == assumptions
    assert q.status is QuestionStatus.SKIPPED and s.revisits[-1].settled


async def test_revisit_picks_by_number_and_lists_the_choices_otherwise(make_service):
    h = make_service(script())
    sid, s = await skipped_session(h)
    listed = await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT))
    assert listed.status is S.COMPLETED and "/revisit <number>" in listed.message
    assert all(q.question in listed.message for q in s.questions)
    res = await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT, text="2"))
    assert res.question.question_id == s.questions[1].question_id


async def test_revisit_refuses_an_answered_question_and_an_unfinished_session(make_service):
    h = make_service(script())
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=COUNCIL)))
    sid, first = res.session_id, res.question.question_id
    with pytest.raises(CouncilError) as early:
        await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT, question_id=first))
    assert early.value.code is ErrorCode.VALIDATION and early.value.details["status"] == "clarifying"
    await h.service.turn(TurnParams(session_id=sid, text="Cut costs"))
    await h.service.turn(TurnParams(session_id=sid, text="skip"))
    with pytest.raises(CouncilError) as answered:
        await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT, question_id=first))
    assert answered.value.details["status"] == "answered" and len(answered.value.details["revisable"]) == 1


async def test_a_council_of_one_answers_again_after_a_revisit(make_service):
    h = make_service()
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=["Security Expert"])))
    sid = res.session_id
    await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.SKIP_ALL))
    s = h.runtime(sid).session
    await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT,
                                    question_id=s.questions[0].question_id))
    done = await h.service.turn(TurnParams(session_id=sid, text="1"))
    assert done.status is S.COMPLETED and s.debate_cycles == 0 and not s.votes
    assert [x.cycle for x in s.responses] == [0, 0] and "**What changed:**" in done.final_answer
