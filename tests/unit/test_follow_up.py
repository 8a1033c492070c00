"""After the answer, in the domain and its presentation: the follow-up prompt holds the whole session, the records
keep their rules, the moderator's answer streams like a persona's, and the transcript tells both."""

from __future__ import annotations

import json

import pytest
from unit_helpers import SID, Builder

from council.errors import CouncilError
from council.present import clarify, follow_up
from council.present.transcript import transcript
from council.session.calls.prompts import FOLLOW_UPS_SHOWN, follow_up_messages
from council.session.state import records as r
from council.session.state.entities import (
    MAX_TOTAL_CYCLES,
    REOPEN_CYCLES,
    FollowUp,
    SessionSettings,
    SessionStatus,
    UserInput,
)
from council.session.state.outputs import FollowUpReply, reply_schema
from council.session.state.reducer import replay


def completed(b: Builder) -> Builder:
    """Clarified (one answer, one skip), one debate cycle with votes, a tally and an answer."""
    b.clarifying()
    b.ask("q1-1")
    b.answer("q1-1", "By the end of next quarter")
    b.ask("q1-2")
    b.skip("q1-2")
    b.status(SessionStatus.DEBATING)
    b.run_cycle(1)
    b.options()
    b.vote("Alpha", "A", 1)
    b.vote("Beta", "B", 1, rationale="too risky")
    for name in ("Alpha", "Beta"):
        b.state_conclusion(name, 1)
    b.tally()
    b.status(SessionStatus.FINAL)
    b.synthesis()
    b.status(SessionStatus.COMPLETED)
    return b


def answer_record(b: Builder, question: str, answer: str = "Because of the risk.") -> r.FollowUpAnswered:
    return r.FollowUpAnswered(at=b.at(), follow_up=FollowUp(
        session_id=SID, question=question, answer=answer, after_cycle=b.s.debate_cycles, asked_at=b.at(),
        answered_at=b.at()))


def reopen_record(b: Builder, text: str = "The budget doubled.") -> r.DebateReopened:
    return r.DebateReopened(at=b.at(), input=UserInput(session_id=SID, text=text, after_cycle=b.s.debate_cycles,
                                                       added_at=b.at()))


def test_the_follow_up_prompt_holds_the_whole_session_and_ends_with_the_question():
    b = completed(Builder())
    schema = reply_schema(FollowUpReply)
    system, user = follow_up_messages(b.s, schema, b.s.latest_responses(), "majority for A", "Why did Beta object?")
    assert '"answer"' in system.content and "never invent" in system.content
    text = user.content
    for part in ("Split the monolith?", "By the end of next quarter", "assumed for q1-2",
                 "Alpha: Alpha position in cycle 1 Voted A (Do it)", "Beta: Beta position in cycle 1 Voted B (Wait)",
                 "Vote outcome: majority for A", "The council's answer: Do it"):
        assert part in text, part
    assert text.rstrip().endswith("The user's follow-up question:\nWhy did Beta object?")


def test_earlier_follow_ups_are_in_the_prompt_the_latest_ones_only():
    b = completed(Builder())
    for i in range(FOLLOW_UPS_SHOWN + 1):
        b.apply(answer_record(b, f"question number {i}?", f"answer number {i}."))
    _, user = follow_up_messages(b.s, reply_schema(FollowUpReply), [], None, "And now?")
    assert "question number 0?" not in user.content
    assert all(f"question number {i}?" in user.content for i in range(1, FOLLOW_UPS_SHOWN + 1))
    assert "answer number 3." in user.content and "Vote outcome" not in user.content


def test_follow_ups_are_recorded_only_on_a_completed_session_and_replay():
    b = Builder()
    b.clarifying()
    with pytest.raises(CouncilError) as err:
        b.apply(answer_record(b, "Why?"))
    assert err.value.details["status"] == "clarifying" and b.s.follow_ups == []
    b = completed(Builder())
    b.apply(answer_record(b, "Why?"))
    b.apply(answer_record(b, "And then?"))
    assert [f.question for f in b.s.follow_ups] == ["Why?", "And then?"] and b.s.status is SessionStatus.COMPLETED
    assert replay(b.journal) == b.s


def test_reopening_lets_the_debate_run_a_few_more_cycles():
    b = completed(Builder())
    b.apply(reopen_record(b))
    assert b.s.reopened_cycle_limit == 1 + REOPEN_CYCLES and b.s.cycle_limit == b.s.settings.max_cycles
    assert [i.text for i in b.s.user_inputs] == ["The budget doubled."]
    b.status(SessionStatus.DEBATING)
    b.run_cycle(2)
    assert replay(b.journal) == b.s
    with pytest.raises(CouncilError):  # only a completed debate re-opens
        b.apply(reopen_record(b))


def test_reopening_past_a_small_cap_and_never_past_the_ceiling():
    b = completed(Builder(settings=SessionSettings(max_cycles=1, min_cycles=1)))
    assert b.s.cycle_limit == 1
    b.apply(reopen_record(b))
    assert b.s.cycle_limit == 1 + REOPEN_CYCLES
    b = completed(Builder())
    b.s.debate_cycles = MAX_TOTAL_CYCLES
    with pytest.raises(CouncilError) as err:
        b.apply(reopen_record(b))
    assert err.value.details["cap"] == MAX_TOTAL_CYCLES


def test_the_moderator_answer_streams_under_one_heading_then_closes():
    b = completed(Builder())
    reply = json.dumps({"answer": "Beta feared the cut-over.\n\nAlpha did not."})
    text = follow_up.live("Moderator")
    streamed = "".join(text.feed(reply[i:i + 7]) for i in range(0, len(reply), 7))
    f = answer_record(b, "Why?", "Beta feared the cut-over.\n\nAlpha did not.").follow_up
    rest = follow_up.answered(text, f)
    assert streamed.startswith("#### Moderator\n\nBeta feared")
    assert streamed + rest == "#### Moderator\n\nBeta feared the cut-over.\n\nAlpha did not.\n\n" + follow_up.closing()
    assert "/extend" in follow_up.closing() and "/new" in follow_up.closing()
    unstreamed = follow_up.answered(follow_up.live("Moderator"), f)  # nothing streamed: all of it at the end
    assert unstreamed == streamed + rest


def test_the_transcript_tells_reopenings_and_follow_ups():
    b = completed(Builder())
    b.apply(answer_record(b, "Why did Beta object?", "Because of the risk."))
    b.apply(reopen_record(b, "The budget doubled."))
    b.status(SessionStatus.DEBATING)
    b.run_cycle(2)
    md = transcript(b.s)
    assert md.index("## You re-opened the debate\n\n> The budget doubled.") < md.index("## Cycle 2")
    assert md.index("## Follow-up questions") > md.index("## Cycle 2")
    assert "**You asked:** Why did Beta object?\n\n#### Moderator\n\nBecause of the risk." in md


def test_confirm_new_quotes_the_question_and_the_text():
    b = Builder()
    b.clarifying()
    b.ask("q1-1")
    md = clarify.confirm_new(b.s.active_question, "Should we use\nKafka?")
    assert md.startswith("That reads like a new question. Is it your answer to *“Question 1 of round 1?”*")
    assert "> Should we use Kafka?" in md
