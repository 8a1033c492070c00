"""Whole sessions in-process: CouncilService on the scripted provider."""

from __future__ import annotations

import anyio
import pytest
from unit_helpers import first_vote_rules, persona_reply, persona_rules, rule

from council.errors import CouncilError, ErrorCode
from council.protocol.methods import AnswerParams, Awaiting, Intent, SessionOptions, TurnCommand, TurnParams
from council.session.state.entities import QuestionStatus, SessionSettings
from council.session.state.entities import SessionStatus as S

PROBLEM = "Should we split our monolith into services this quarter?"
PERSONA_ALWAYS_CONTINUE = {
    "position": "Keep debating: the trade-offs are not settled.",
    "summary": ["s1", "s2", "s3", "s4", "s5"],
    "advice": ["a1", "a2", "a3", "a4", "a5"],
    "risks": ["r1"],
    "next_steps": ["n1", "n2", "n3", "n4", "n5"],
    "confidence": "medium",
    "confidence_rationale": "unsettled",
    "continue_debate": True,
}


def no_clarify(**kw) -> SessionOptions:
    return SessionOptions(clarify=False, **kw)


async def ask(h, text=PROBLEM, **opts):
    return await h.service.turn(TurnParams(text=text, options=SessionOptions(**opts)))


async def say(h, sid, text, **kw):
    return await h.service.turn(TurnParams(session_id=sid, text=text, **kw))


def responses(h, sid, persona=None):
    return [x for x in h.runtime(sid).session.responses if persona is None or x.persona == persona]


# --- clarification ------------------------------------------------------------------------------------------
async def test_first_turn_asks_one_question(make_service):
    h = make_service()
    res = await ask(h)
    assert res.status is S.CLARIFYING and res.awaiting is Awaiting.ANSWER and res.intent is Intent.NEW_PROBLEM
    s = h.runtime(res.session_id).session
    assert s.active_question.question_id == res.question.question_id
    assert len(s.planned_questions) == 1 and s.planned_rounds == 1
    assert s.clarification_rounds == 0  # seed 002: rounds completed, and round 1 is still open
    assert len(h.of(res.session_id, "question.asked")) == 1


async def test_answer_idempotency_key_repeated(make_service):
    h = make_service()
    res = await ask(h)
    sid, q1 = res.session_id, res.question.question_id
    params = AnswerParams(session_id=sid, question_id=q1, action="skip", idempotency_key="k1")
    first = await h.service.answer(params)
    again = await h.service.answer(params)
    assert not first.duplicate and again.duplicate
    assert again.question.question_id == first.question.question_id != q1
    s = h.runtime(sid).session
    assert [q.status for q in s.questions] == [QuestionStatus.SKIPPED, QuestionStatus.PENDING]
    assert len(s.assumption_log) == 1


async def test_answer_idempotency_key_concurrent(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    params = AnswerParams(
        session_id=sid, question_id=res.question.question_id, action="skip", idempotency_key="double-click"
    )
    results = []

    async def click():
        results.append(await h.service.answer(params))

    async with anyio.create_task_group() as tg:
        tg.start_soon(click)
        tg.start_soon(click)
    assert sorted(r.duplicate for r in results) == [False, True]
    s = h.runtime(sid).session
    assert sum(q.status is QuestionStatus.SKIPPED for q in s.questions) == 1
    assert len(s.assumption_log) == 1


async def test_turn_idempotency_key_concurrent(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    results = []

    async def send():
        results.append(await say(h, sid, "skip", idempotency_key="t-1"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(send)
        tg.start_soon(send)
    assert sorted(r.duplicate for r in results) == [False, True]
    s = h.runtime(sid).session
    assert [q.status for q in s.questions] == [QuestionStatus.SKIPPED, QuestionStatus.PENDING]


async def test_refusals_are_not_memoised(make_service):
    """A refused request leaves nothing behind: the same key works once the reason is gone (issue 10)."""
    h = make_service()
    res = await ask(h)
    rt = h.runtime(res.session_id)
    bad = AnswerParams(
        session_id=res.session_id, question_id="not-the-active-one", text="x", idempotency_key="k"
    )
    with pytest.raises(CouncilError) as first:
        await h.service.answer(bad)
    assert first.value.code is ErrorCode.VALIDATION and len(h.service.store.get(res.session_id).once) == 0
    good = bad.model_copy(update={"question_id": res.question.question_id})
    ok = await h.service.answer(good)
    assert not ok.duplicate and rt.session.questions[0].user_answer is not None
    again = await h.service.answer(good)
    assert again.duplicate and again.status is ok.status


async def test_refused_turn_with_key_is_refused_again_not_replayed(make_service):
    h = make_service()
    with pytest.raises(CouncilError, match="unknown session") as first:
        await say(h, "missing", "skip", idempotency_key="x")
    with pytest.raises(CouncilError, match="unknown session") as second:
        await say(h, "missing", "skip", idempotency_key="x")
    assert second.value is not first.value and len(h.service.new_turns) == 0


async def test_turn_and_answer_keys_do_not_collide(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    a = await h.service.answer(AnswerParams(session_id=sid, question_id=res.question.question_id, text="one",
                                            idempotency_key="same"))
    b = await say(h, sid, "two", idempotency_key="same")
    assert not a.duplicate and not b.duplicate
    assert [q.user_answer.answer for q in h.runtime(sid).session.questions[:2]] == ["one", "two"]


async def test_answer_by_choice_number_and_label(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    res2 = await say(h, sid, "2")
    s = h.runtime(sid).session
    assert s.questions[0].user_answer.answer == res.question.choices[1].value
    await say(h, sid, res2.question.choices[0].label.upper())
    assert s.questions[1].user_answer.answer == res2.question.choices[0].value


async def test_more_questions_up_to_the_cap(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    r2 = await say(h, sid, "more questions")
    assert r2.intent is Intent.MORE_QUESTIONS and h.runtime(sid).session.planned_rounds == 2
    r3 = await say(h, sid, "ещё вопросы")
    assert h.runtime(sid).session.planned_rounds == 3
    assert h.runtime(sid).session.clarification_rounds == 0  # three planned, none completed: the first is open
    assert r3.awaiting is Awaiting.ANSWER
    with pytest.raises(CouncilError) as info:
        await say(h, sid, "more questions")
    assert info.value.code is ErrorCode.VALIDATION and info.value.details["cap"] == 3
    s = h.runtime(sid).session
    assert s.planned_rounds == 3 and s.clarification_rounds == 0 and s.status is S.CLARIFYING
    done = await say(h, sid, "skip all")
    assert done.status is S.COMPLETED and s.clarification_rounds == 3
    assert len(done.final_answer) > 0
    assert all(q.status is QuestionStatus.SKIPPED for q in s.questions) and not s.planned_questions


async def test_defer_then_revisit(make_service):
    h = make_service()
    res = await ask(h)
    sid, q1 = res.session_id, res.question.question_id
    r2 = await say(h, sid, "later")
    assert r2.question.question_id != q1
    r3 = await say(h, sid, "This quarter")
    assert r3.question.question_id == q1 and r3.question.revisited
    r4 = await say(h, sid, "later")  # deferred twice becomes a skip
    assert r4.status is S.COMPLETED
    assert h.runtime(sid).session.question(q1).status is QuestionStatus.SKIPPED


async def test_answer_outside_clarification_refused(make_service):
    h = make_service()
    res = await ask(h, clarify=False)
    assert res.status is S.COMPLETED
    with pytest.raises(CouncilError, match="no question is waiting"):
        await say(h, res.session_id, "skip", command=TurnCommand.SKIP)
    with pytest.raises(CouncilError, match="only while the council is clarifying"):
        await say(h, res.session_id, "more", command=TurnCommand.MORE)


# --- assumptions, dissent -----------------------------------------------------------------------------------
async def test_assumptions_from_skipped_questions_in_final_answer(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    done = await say(h, sid, "skip all")
    assert done.status is S.COMPLETED and done.awaiting is Awaiting.NOTHING
    s = h.runtime(sid).session
    defaults = [q.default_assumption for q in s.questions]
    assert len(defaults) == 2 and [a.assumption for a in s.assumption_log] == defaults
    section = done.final_answer.split("### Assumptions the council made\n", 1)[1]
    for text in defaults:
        assert f"- {text}" in section
    assert s.synthesis.assumptions == defaults
    assert len(h.of(sid, "assumption.recorded")) == 2


async def test_devils_advocate_dissent_in_final_synthesis(make_service):
    h = make_service()
    done = await ask(h, clarify=False)
    s = h.runtime(done.session_id).session
    assert "Devil's Advocate" in [p.name for p in s.personas]
    dissent = s.synthesis.dissent
    # the scripted contrarian vote, with its counterpoints in the same entry: listed once
    mine = [d for d in dissent if d.startswith("Devil's Advocate")]
    assert len(mine) == 1 and mine[0].startswith("Devil's Advocate voted B") and "Risks:" in mine[0]
    assert done.final_answer.count("Devil's Advocate voted B") == 1
    assert "### Dissent\n\n- Devil's Advocate" in done.final_answer


# --- debate limits and extension ----------------------------------------------------------------------------
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]


def unsettled_script(cycles: int) -> dict:
    """Three advisors split 1–2 with the minority's confidence creeping up each cycle: never converged (< 75 %),
    never an impasse (the weighted agreement changes every round), nobody asks to stop."""
    architect, developer, devil = COUNCIL
    rules = [
        *first_vote_rules(**{architect: ("A", 0.8), developer: ("B", 0.8), devil: ("B", 0.6)}),
        *persona_rules(architect, range(1, cycles + 1), option="A", vote_confidence=0.8),
        *persona_rules(devil, range(1, cycles + 1), option="B", vote_confidence=0.6),
    ]
    for c in range(1, cycles + 1):
        rules += persona_rules(developer, [c], option="B", vote_confidence=round(0.5 + 0.1 * c, 2))
    return {"rules": rules}


async def test_debate_cap_then_extend(make_service):
    h = make_service(unsettled_script(5), SessionSettings(max_cycles=3, min_cycles=2, extended_max_cycles=5))
    done = await ask(h, clarify=False, personas=COUNCIL)
    sid = done.session_id
    s = h.runtime(sid).session
    assert done.status is S.COMPLETED and s.debate_cycles == 3 and done.can_extend
    assert not any(x.abstained for x in s.responses)
    assert [d.convergence.status for d in s.discussions] == ["refining", "diverging", "refining"]
    limit = h.of(sid, "debate.limitReached")
    assert len(limit) == 1
    assert limit[0]["cycles"] == 3 and limit[0]["limit"] == 3 and limit[0]["canExtend"]
    assert limit[0]["extendedLimit"] == 5
    assert [d.status.value for d in s.discussions] == ["concluded", "concluded", "limit_reached"]
    assert {v.cycle for v in s.votes} == {1, 2, 3}  # vote-first: every round votes
    assert s.tally.voters == 3 and s.tally.counts == {"A": 1, "B": 2}

    again = await say(h, sid, "extend debate")
    assert again.intent is Intent.EXTEND_DEBATE and again.status is S.COMPLETED
    s = h.runtime(sid).session
    assert s.extended_debate_requested and s.debate_cycles == 5 and not again.can_extend
    assert len(h.of(sid, "debate.limitReached")) == 2
    assert {v.cycle for v in s.votes} == {1, 2, 3, 4, 5} and len(s.votes) == 15
    assert s.tally.voters == 3  # only the last round counts
    assert sum(s.tally.counts.values()) == 3
    assert len(h.of(sid, "final.answer")) == 2
    assert "after the first vote and 4 debate cycles._" in again.final_answer  # cycle 1 is the first vote
    with pytest.raises(CouncilError, match="already extended"):
        await say(h, sid, "extend")


async def test_min_cycles_respected_when_everyone_wants_to_stop(make_service):
    script = {
        "rules": [
            rule("PersonaReply", persona_reply(1, option="B", continue_debate=False), purpose="Devil's Advocate",
                 cycle=1),
            *[rule("PersonaReply", persona_reply(c, continue_debate=False), cycle=c) for c in range(1, 7)],
        ]
    }  # first votes A 2 · B 1 (not converged), and every reply says continue_debate false
    h = make_service(script, SessionSettings(min_cycles=2, max_cycles=6))
    done = await ask(h, clarify=False)
    s = h.runtime(done.session_id).session
    assert s.debate_cycles == 2
    assert not any(x.abstained for x in s.responses)
    first = s.discussions[0].convergence
    assert first.stop_requests == 1.0 and first.status != "converged"  # cycle 1 would stop without min_cycles
    assert s.discussions[1].convergence.stop_requests == 1.0
    assert done.status is S.COMPLETED
    assert not h.of(done.session_id, "debate.limitReached")


# --- failing personas ---------------------------------------------------------------------------------------
async def test_garbage_twice_abstains_with_a_note(make_service):
    who = "Senior Developer"
    h = make_service(
        {
            "rules": [
                {
                    "when": {"schema": "PersonaReply", "purpose": who},
                    "reply": "I think we should do it, no JSON from me.",
                }
            ]
        }
    )
    done = await ask(h, clarify=False)
    sid = done.session_id
    assert done.status is S.COMPLETED
    mine = responses(h, sid, who)
    assert mine and all(x.abstained for x in mine)
    assert mine[0].note.startswith(f"{who} abstains: unusable reply after one repair attempt")
    shown = "".join(e["markdown"] for e in h.events if e.get("persona") == who and e["sessionId"] == sid)
    # one compact line per abstention, each carrying the abstention note (no raw reply, no JSON)
    lines = [x for x in shown.splitlines() if x.strip()]
    assert len(lines) == len(mine) and all(x.startswith(f"- **{who}** — _{who} abstains:") for x in lines), lines
    s = h.runtime(sid).session
    assert who in s.tally.abstentions
    assert all(v.persona != who for v in s.votes)
    assert f"Abstained in the last cycle: {who}." in s.synthesis.notes


async def test_garbage_then_valid_is_repaired(make_service):
    who = "Software Architect"
    h = make_service(
        {
            "rules": [
                {"when": {"schema": "PersonaReply", "purpose": who}, "reply": '{"position": "tru', "times": 1}
            ]
        }
    )
    done = await ask(h, clarify=False)
    first = responses(h, done.session_id, who)[0]
    assert not first.abstained and first.note == "repaired after one retry"
    assert first.position.startswith(who)
    repair = next(iter(h.service.hub._cache.values())).calls
    persona_calls = [c for c in repair if c.purpose == who and c.json_schema["title"] == "PersonaReply"]
    assert sum(c.cycle == 1 for c in persona_calls) == 2


async def test_all_personas_failing_waits_for_retry(make_service):
    h = make_service({"rules": [{"when": {"schema": "PersonaReply"}, "error": "client", "times": 3}]})
    res = await ask(h, clarify=False)
    sid = res.session_id
    assert res.status is S.DEBATING and res.awaiting is Awaiting.NOTHING
    assert res.message is None  # the one problem event says it; the result does not repeat it
    errors = h.of(sid, "error")
    assert len(errors) == 1 and errors[0]["retryable"] and "Every advisor failed" in errors[0]["message"]
    assert errors[0]["message"].count("refused the request (HTTP 400)") == 1
    assert set(errors[0]["details"]["failed"]) == {p.name for p in h.runtime(sid).session.personas}
    s = h.runtime(sid).session
    assert s.debate_cycles == 0 and s.responses == [] and s.final_answer is None  # the failed cycle is dropped
    assert [e["cycle"] for e in h.of(sid, "cycle.dropped")] == [1]

    done = await say(h, sid, "retry")
    assert done.intent is Intent.RETRY and done.status is S.COMPLETED
    s = h.runtime(sid).session
    assert s.debate_cycles == 2 and s.final_answer
    assert not any(x.abstained for x in s.responses)


async def test_retry_resumes_an_open_question_without_a_model_call(make_service):
    h = make_service()
    res = await ask(h)
    calls = len(next(iter(h.service.hub._cache.values())).calls)
    asked = len(h.of(res.session_id, "question.asked"))
    again = await say(h, res.session_id, "retry", command=TurnCommand.RETRY)
    assert again.awaiting is Awaiting.ANSWER and again.question.question_id == res.question.question_id
    assert len(next(iter(h.service.hub._cache.values())).calls) == calls
    shown = h.of(res.session_id, "question.asked")
    assert len(shown) == asked + 1 and shown[-1]["question"]["questionId"] == res.question.question_id


async def test_retry_refused_once_completed_or_cancelled(make_service):
    h = make_service()
    done = await ask(h, clarify=False)
    with pytest.raises(CouncilError, match="completed, so there is nothing to resume"):
        await say(h, done.session_id, "", command=TurnCommand.RETRY)
    res = await ask(h)
    await h.service.cancel(res.session_id)
    with pytest.raises(CouncilError, match="cancelled and cannot be resumed"):
        await say(h, res.session_id, "", command=TurnCommand.RETRY)


# --- cancel, status, isolation ------------------------------------------------------------------------------
async def test_cancel_then_text_starts_a_new_session(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    cancelled = await say(h, sid, "отмена")
    assert cancelled.status is S.CANCELLED and cancelled.intent is Intent.CANCEL
    again = await h.service.cancel(sid)  # cancelling twice is harmless
    assert again.status is S.CANCELLED
    assert sum(e["status"] == "cancelled" for e in h.of(sid, "status.changed")) == 1
    fresh = await say(h, sid, "A different problem about pricing")
    assert fresh.session_id != sid and fresh.intent is Intent.NEW_PROBLEM
    assert h.runtime(sid).session.status is S.CANCELLED


async def test_cancel_completed_session_refused(make_service):
    h = make_service()
    done = await ask(h, clarify=False)
    with pytest.raises(CouncilError, match="already completed"):
        await h.service.cancel(done.session_id)


async def test_status_turn_changes_nothing(make_service):
    h = make_service()
    res = await ask(h)
    before = h.runtime(res.session_id).session.model_dump()
    st = await say(h, res.session_id, "status")
    assert st.intent is Intent.STATUS and "Clarification round 1 of 3 (0 completed)" in st.message
    assert h.runtime(res.session_id).session.model_dump() == before


async def test_two_sessions_do_not_share_state(make_service):
    h = make_service()
    a = await ask(h)
    b = await ask(h, "How do we price the enterprise plan for next year?")
    assert a.session_id != b.session_id
    await h.service.answer(
        AnswerParams(
            session_id=a.session_id,
            question_id=a.question.question_id,
            action="skip",
            idempotency_key="same-key",
        )
    )
    rb = await h.service.answer(
        AnswerParams(
            session_id=b.session_id,
            question_id=b.question.question_id,
            text="Enterprise only",
            idempotency_key="same-key",
        )
    )
    assert not rb.duplicate  # answer keys are per session
    sa, sb = h.runtime(a.session_id).session, h.runtime(b.session_id).session
    assert (
        sa.questions[0].status is QuestionStatus.SKIPPED and sb.questions[0].status is QuestionStatus.ANSWERED
    )
    assert len(sa.assumption_log) == 1 and sb.assumption_log == []
    assert sb.request_text.startswith("How do we price")
    assert {e["sessionId"] for e in h.of(a.session_id)} == {a.session_id}
    for sid in (a.session_id, b.session_id):
        seqs = [e["seq"] for e in h.of(sid)]
        assert seqs == list(range(1, len(seqs) + 1))
    assert not set(map(id, h.runtime(a.session_id).journal)) & set(map(id, h.runtime(b.session_id).journal))


async def test_event_sequence_numbers_per_session(make_service):
    h = make_service()
    done = await ask(h, clarify=False)
    seqs = [e["seq"] for e in h.of(done.session_id)]
    assert seqs == list(range(1, len(seqs) + 1))
    types = [e["type"] for e in h.of(done.session_id)]
    assert types.index("votes.tallied") < types.index("final.answer") < len(types)


async def test_live_stream_matches_final_response_when_lists_are_trimmed(make_service):
    from council.present.live_render import render
    from council.present.persona import PersonaLine
    from council.present.transcript import transcript

    who = "Senior Developer"
    long_reply = dict(
        PERSONA_ALWAYS_CONTINUE, summary=[f"point {i}" for i in range(1, 10)], continue_debate=False
    )
    h = make_service({"rules": [{"when": {"schema": "PersonaReply", "purpose": who}, "reply": long_reply}]})
    done = await ask(h, clarify=False)
    shown = "".join(
        e["markdown"] for e in h.of(done.session_id) if e.get("persona") == who and e.get("cycle") == 1
    )
    final = responses(h, done.session_id, who)[0]
    # the stream plus the completion read exactly as the line of the final reply: its position, no list items
    assert [e for e in h.of(done.session_id, "persona.delta") if e["persona"] == who and e["cycle"] == 1]
    assert shown == PersonaLine(who).complete(final) and "point" not in shown
    # and the transcript keeps the full reply as stored: one heading, the trimmed lists, a footer
    body = render(final.model_dump(), set(final.model_dump()), final=True)
    assert "point 5" in body and "point 6" not in body  # as many as were asked: standard depth's least (issue 34)
    assert f"#### {who}\n\n{body}_Confidence: " in transcript(h.runtime(done.session_id).session)


async def test_turn_keys_live_with_their_session_and_new_session_keys_are_bounded(make_service):
    h = make_service()
    res = await ask(h)
    sid = res.session_id
    await say(h, sid, "skip", idempotency_key="click")
    assert len(h.service.store.get(sid).once) == 1  # evicted together with the session
    assert len(h.service.new_turns) == 0
    h.service.new_turns.limit = 3
    for i in range(5):
        await h.service.turn(TurnParams(text=f"Should we adopt a monorepo ({i})?", idempotency_key=f"fresh{i}",
                                        options=SessionOptions(clarify=False)))
    assert len(h.service.new_turns) == 3  # the oldest keys are forgotten


async def test_personas_before_a_session_lists_the_chat_personas_only(make_service):
    h = make_service()
    result = await h.service.turn(TurnParams(text="/personas", command=TurnCommand.PERSONAS))
    assert result.message.startswith("Available personas: ") and "Devil's Advocate" in result.message
    assert "Security Expert" in result.message and "Growth Strategist" in result.message
    assert "Risk Officer" not in result.message and "Code Reviewer" not in result.message
