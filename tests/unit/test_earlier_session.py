"""A session started because the earlier one is gone (a reload without keepAcrossReloads) reuses the replies the
user gave that one — answers, skips, skip all — and says so in one line; a bare "continue" takes up the earlier
question (issue 21)."""

from __future__ import annotations

from council.protocol.methods import Awaiting, EarlierAnswer, EarlierSession, SessionOptions, TurnParams
from council.session.state.entities import QuestionStatus
from council.session.state.entities import SessionStatus as S

PROBLEM = "Should we split our monolith into services this quarter?"


async def _lost_session(h):
    """A session whose two questions the user answered and skipped, as the chat history shows them."""
    first = await h.service.turn(TurnParams(text=PROBLEM))
    q1 = first.question.question
    second = await h.service.turn(TurnParams(session_id=first.session_id, text="Eight engineers, two teams."))
    return q1, second.question.question


async def test_a_new_session_reuses_the_answer_and_the_skip(make_service):
    h = make_service()
    q1, q2 = await _lost_session(h)
    earlier = EarlierSession(problem=PROBLEM, answers=[
        EarlierAnswer(question=q1, answer="Eight engineers, two teams."), EarlierAnswer(question=q2, action="skip")])
    res = await h.service.turn(TurnParams(text=PROBLEM, earlier=earlier))
    assert res.status is S.COMPLETED and res.awaiting is Awaiting.NOTHING  # nothing asked again
    s = h.runtime(res.session_id).session
    assert [q.status for q in s.questions] == [QuestionStatus.ANSWERED, QuestionStatus.SKIPPED]
    assert s.questions[0].user_answer.answer == "Eight engineers, two teams."
    assert len(s.assumption_log) == 1
    assert res.message.startswith("_The council takes up your earlier question again and reuses your 1 answer and 1 "
                                  "skipped question from before the reload: it does not ask those questions again._")
    other = EarlierSession(answers=earlier.answers)  # a new question typed after the reload: the replies only
    again = await h.service.turn(TurnParams(text=PROBLEM + " Now.", earlier=other))
    assert again.status is S.COMPLETED and again.message.startswith("_The council reuses your 1 answer and 1 skipped")


async def test_continue_takes_up_the_earlier_question_and_skip_all_skips_the_rest(make_service):
    h = make_service()
    q1, _ = await _lost_session(h)
    earlier = EarlierSession(problem=PROBLEM, answers=[EarlierAnswer(question=q1, action="skip_all")])
    res = await h.service.turn(TurnParams(text="continue", earlier=earlier))
    s = h.runtime(res.session_id).session
    assert s.request_text == PROBLEM and res.status is S.COMPLETED
    assert all(q.status is QuestionStatus.SKIPPED for q in s.questions) and len(s.questions) == 2
    assert res.message.startswith("_The council takes up your earlier question again and reuses your 2 skipped "
                                  "questions from before the reload")


async def test_replies_to_other_questions_are_not_forced_on_new_ones(make_service):
    h = make_service()
    earlier = EarlierSession(answers=[EarlierAnswer(question="Which cloud provider do you use today?",
                                                    answer="AWS")])
    res = await h.service.turn(TurnParams(text=PROBLEM, earlier=earlier))
    assert res.status is S.CLARIFYING and res.awaiting is Awaiting.ANSWER  # the moderator's question is asked
    assert res.message == "_Your replies from before the reload do not match the moderator's new questions, so " \
                          "it asks them._"
    plain = await h.service.turn(TurnParams(text=PROBLEM))
    assert plain.message is None  # no earlier session: no line


async def test_a_reused_reply_is_one_line_not_a_question_asked(make_service):
    """A question the user replied to before the reload is not presented as asked ("The moderator asks", its
    buttons): only its reuse line shows (issue 21, audit)."""
    h = make_service()
    q1, q2 = await _lost_session(h)
    earlier = EarlierSession(problem=PROBLEM, answers=[
        EarlierAnswer(question=q1, answer="Eight engineers, two teams."), EarlierAnswer(question=q2, action="skip")])
    res = await h.service.turn(TurnParams(text=PROBLEM, earlier=earlier))
    assert h.of(res.session_id, "question.asked") == []
    text = "".join(e["markdown"] for e in h.of(res.session_id))
    assert "The moderator asks" not in text and "If you skip it" not in text
    answered, skipped = h.of(res.session_id, "question.resolved")
    assert answered["reused"] and skipped["reused"]
    assert answered["markdown"] == f"✓ Using your earlier answer to “{q1}”: **Eight engineers, two teams.**\n\n"
    assert skipped["markdown"] == f"✓ You skipped “{q2}” before the reload.\n\n"
    assert len(h.of(res.session_id, "assumption.recorded")) == 1  # the skip's assumption, on its own line
    plain = await h.service.turn(TurnParams(text=PROBLEM))
    [asked] = h.of(plain.session_id, "question.asked")  # a question nobody replied to is asked as ever
    assert asked["markdown"].startswith("**The moderator asks**")


async def test_the_new_session_says_first_that_the_earlier_one_is_gone_in_its_language(make_service):
    """The note that the earlier session is gone is the sidecar's, in the session's language: the first event's
    markdown (not a progress line a client may fold away), one per new session."""
    h = make_service()
    res = await h.service.turn(TurnParams(text=PROBLEM, earlier=EarlierSession(problem=PROBLEM)))
    first = next(e for e in h.of(res.session_id) if e["markdown"])
    assert first["type"] == "session.replaced" and first["reason"] == "unknown_session"
    assert first["markdown"].startswith("> ℹ️ The earlier council session is gone") and "keepAcrossReloads" in \
        first["markdown"]
    assert len(h.of(res.session_id, "session.replaced")) == 1
    ru = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(language="ru"),
                                         earlier=EarlierSession(reason="expired")))
    [note] = h.of(ru.session_id, "session.replaced")
    assert note["reason"] == "expired"
    assert note["markdown"] == "> ℹ️ Срок прежней сессии совета истёк, поэтому начинается новая сессия.\n\n"
    plain = await h.service.turn(TurnParams(text=PROBLEM))
    assert h.of(plain.session_id, "session.replaced") == []
