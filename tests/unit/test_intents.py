"""What a chat turn means: keywords (English, Russian), slash commands, and the session status."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from council.protocol.methods import Intent, TurnCommand
from council.session.state.entities import Choice, ClarificationQuestion, Participant, ParticipantType
from council.session.state.entities import SessionStatus as S
from council.session.steps.intents import decide_intent, keyword_intent

IN = Intent
QUESTION = ClarificationQuestion(
    session_id="s", round_number=1, sequence_in_round=1, question="What timeline are you working with?",
    target_ambiguity="timeline", asked_by=Participant(type=ParticipantType.SYSTEM, name="Moderator"),
    choices=[Choice(label="This quarter", value="This quarter"), Choice(label="This year", value="This year")],
    default_assumption="The timeline is this quarter.", created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("skip", IN.SKIP),
        ("Skip.", IN.SKIP),
        ("  SKIP!  ", IN.SKIP),
        ("/skip", IN.SKIP),
        ("I don’t know", IN.SKIP),
        ("пропустить", IN.SKIP),
        ("Пропусти", IN.SKIP),
        ("не знаю", IN.SKIP),
        ("skip all", IN.SKIP_ALL),
        ("Skip the rest", IN.SKIP_ALL),
        ("just answer", IN.SKIP_ALL),
        ("пропустить все", IN.SKIP_ALL),
        ("Пропусти всё", IN.SKIP_ALL),
        ("more questions", IN.MORE_QUESTIONS),
        ("ask me more?", IN.MORE_QUESTIONS),
        ("ещё вопросы", IN.MORE_QUESTIONS),
        ("еще вопросы", IN.MORE_QUESTIONS),
        ("больше вопросов", IN.MORE_QUESTIONS),
        ("extend debate", IN.EXTEND_DEBATE),
        ("extend", IN.EXTEND_DEBATE),
        ("продлить дебаты", IN.EXTEND_DEBATE),
        ("cancel", IN.CANCEL),
        ("Stop!", IN.STOP),
        ("pause", IN.STOP),
        ("отмена", IN.CANCEL),
        ("стоп", IN.STOP),
        ("status", IN.STATUS),
        ("where are we?", IN.STATUS),
        ("статус", IN.STATUS),
        ("later", IN.DEFER),
        ("потом", IN.DEFER),
        ("retry", IN.RETRY),
        ("ещё раз", IN.RETRY),
        ("personas", IN.PERSONAS),
    ],
)
def test_keywords(text, intent):
    assert keyword_intent(text) is intent


@pytest.mark.parametrize(
    "text",
    [
        "skip the migration if risky",
        "skipping",
        "more money",
        "cancel culture",
        "пропустить миграцию",
        "",
        "status of the billing module",
    ],
)
def test_sentences_are_not_keywords(text):
    assert keyword_intent(text) is None


@pytest.mark.parametrize("status", [None, *S])
@pytest.mark.parametrize("command", list(TurnCommand))
def test_slash_command_wins_over_text(command, status):
    expected = {
        TurnCommand.NEW: IN.NEW_PROBLEM,
        TurnCommand.ANSWER: IN.ANSWER,
        TurnCommand.SKIP: IN.SKIP,
        TurnCommand.SKIP_ALL: IN.SKIP_ALL,
        TurnCommand.MORE: IN.MORE_QUESTIONS,
        TurnCommand.DEFER: IN.DEFER,
        TurnCommand.EXTEND: IN.EXTEND_DEBATE,
        TurnCommand.CANCEL: IN.CANCEL,
        TurnCommand.STOP: IN.STOP,
        TurnCommand.STATUS: IN.STATUS,
        TurnCommand.PERSONAS: IN.PERSONAS,
        TurnCommand.RETRY: IN.RETRY,
        TurnCommand.REVISIT: IN.REVISIT,
    }[command]
    assert decide_intent("cancel", command, status) is expected


def test_sentence_starting_with_skip_is_an_answer_while_clarifying():
    assert decide_intent("skip the migration if risky", None, S.CLARIFYING) is IN.ANSWER
    assert decide_intent("skip", None, S.CLARIFYING) is IN.SKIP
    assert decide_intent("skip all", None, S.CLARIFYING) is IN.SKIP_ALL
    assert decide_intent("Only the billing module", None, S.CLARIFYING) is IN.ANSWER


def test_text_after_completion_is_a_follow_up():
    assert decide_intent("Why did the Devil's Advocate disagree?", None, S.COMPLETED) is IN.FOLLOW_UP
    assert decide_intent("How should we price the new plan?", None, S.COMPLETED) is IN.FOLLOW_UP
    assert decide_intent("How should we price the new plan?", TurnCommand.NEW, S.COMPLETED) is IN.NEW_PROBLEM
    assert decide_intent("skip", None, S.COMPLETED) is IN.HINT  # a keyword with nothing to act on
    assert decide_intent("more questions", None, S.COMPLETED) is IN.HINT


@pytest.mark.parametrize("text", ["extend", "extend debate", "retry", "try again", "ещё раз", "продлить",
                                  "skip the migration", "Only the billing module"])
def test_while_clarifying_other_keywords_are_answers(text):
    assert decide_intent(text, None, S.CLARIFYING, QUESTION) is IN.ANSWER
    assert decide_intent(text, None, S.CLARIFYING) is IN.ANSWER


@pytest.mark.parametrize(("text", "intent"), [
    ("skip", IN.SKIP), ("skip all", IN.SKIP_ALL), ("later", IN.DEFER), ("more questions", IN.MORE_QUESTIONS),
    ("cancel", IN.CANCEL), ("status", IN.STATUS), ("personas", IN.PERSONAS),
])
def test_while_clarifying_these_keywords_act(text, intent):
    assert decide_intent(text, None, S.CLARIFYING, QUESTION) is intent


def test_a_new_problem_typed_while_clarifying_is_confirmed():
    text = "Should we use Kafka or RabbitMQ for our event bus?"
    assert decide_intent(text, None, S.CLARIFYING, QUESTION) is IN.CONFIRM_NEW
    assert decide_intent(text, TurnCommand.ANSWER, S.CLARIFYING, QUESTION) is IN.ANSWER  # the user said so
    assert decide_intent(text, TurnCommand.NEW, S.CLARIFYING, QUESTION) is IN.NEW_PROBLEM
    assert decide_intent("By the end of next quarter", None, S.CLARIFYING, QUESTION) is IN.ANSWER


@pytest.mark.parametrize("text", ["extend", "extend debate", "Extend the debate.", "продлить"])
def test_extend_after_completion_is_extend(text):
    assert decide_intent(text, None, S.COMPLETED) is IN.EXTEND_DEBATE


def test_status_and_personas_work_everywhere():
    for status in [None, *S]:
        assert decide_intent("status", None, status) is IN.STATUS
        assert decide_intent("personas", None, status) is IN.PERSONAS


def test_no_session_yet_means_new_problem():
    assert decide_intent("Should we migrate?", None, None) is IN.NEW_PROBLEM
    assert decide_intent("skip", None, None) is IN.NEW_PROBLEM


def test_cancelled_session_only_accepts_status_or_a_new_problem():
    assert decide_intent("retry", None, S.CANCELLED) is IN.HINT  # a keyword is never the new problem
    assert decide_intent("extend", None, S.CANCELLED) is IN.HINT
    assert decide_intent("Should we adopt Kafka?", None, S.CANCELLED) is IN.NEW_PROBLEM


@pytest.mark.parametrize("status", [S.CREATED, S.DEBATING, S.FINAL])
def test_while_the_council_works(status):
    for text, intent in [
        ("cancel", IN.CANCEL),
        ("stop", IN.STOP),
        ("retry", IN.RETRY),
        ("extend debate", IN.EXTEND_DEBATE),
        ("статус", IN.STATUS),
    ]:
        assert decide_intent(text, None, status) is intent
    assert decide_intent("skip", None, status) is IN.HINT
    assert decide_intent("Should we adopt Kafka?", None, status) is IN.NEW_PROBLEM


def test_only_cancel_cancels_and_stop_pauses():
    """A typed "stop" pauses (Resume continues); cancelling takes "cancel" or the /cancel command."""
    assert decide_intent("stop", None, S.CLARIFYING) is IN.STOP
    assert decide_intent("stop", None, S.DEBATING) is IN.STOP
    assert decide_intent("cancel", None, S.DEBATING) is IN.CANCEL
    assert decide_intent("anything", TurnCommand.STOP, S.FINAL) is IN.STOP


RESUME_WORDS = ["resume", "Continue", "continue.", "go on", "carry on", "keep going", "continue the debate",
                "please continue the debate", "retry", "try again", "продолжить", "Продолжай!", "продолжим"]


@pytest.mark.parametrize("status", [S.CREATED, S.CLARIFYING, S.DEBATING, S.FINAL])
@pytest.mark.parametrize("text", RESUME_WORDS)
def test_resume_words_resume_a_stopped_session(text, status):
    assert decide_intent(text, None, status, QUESTION if status is S.CLARIFYING else None, stopped=True) is IN.RETRY


@pytest.mark.parametrize("status", [S.CREATED, S.DEBATING, S.FINAL])
@pytest.mark.parametrize("text", ["continue", "go on", "продолжай", "keep debating"])
def test_resume_words_resume_a_stalled_session(text, status):
    """Not stopped but idle in a working state: every advisor failed, and retry runs the cycle again."""
    assert decide_intent(text, None, status) is IN.RETRY


@pytest.mark.parametrize("text", ["continue", "go on", "retry"])
def test_resume_words_are_answers_to_an_open_question_when_not_stopped(text):
    assert decide_intent(text, None, S.CLARIFYING, QUESTION) is IN.ANSWER


def test_a_stopped_session_still_takes_its_other_words():
    assert decide_intent("skip", None, S.CLARIFYING, QUESTION, stopped=True) is IN.SKIP
    assert decide_intent("By the end of the year", None, S.CLARIFYING, QUESTION, stopped=True) is IN.ANSWER
    assert decide_intent("cancel", None, S.DEBATING, stopped=True) is IN.CANCEL
    assert decide_intent("status", None, S.DEBATING, stopped=True) is IN.STATUS
    assert decide_intent("more", None, S.DEBATING, stopped=True) is IN.HINT
    assert decide_intent("Should we adopt Kafka?", None, S.DEBATING, stopped=True) is IN.NEW_PROBLEM


@pytest.mark.parametrize(("text", "extendable", "intent"), [
    ("retry", False, IN.HINT), ("retry", True, IN.HINT), ("try again", True, IN.HINT), ("ещё раз", False, IN.HINT),
    ("more", False, IN.HINT), ("more", True, IN.HINT), ("cancel", False, IN.HINT), ("stop", False, IN.HINT),
    ("skip", False, IN.HINT), ("later", False, IN.HINT), ("I don't know", False, IN.HINT),
    ("skip all", False, IN.HINT), ("resume", False, IN.HINT),
    ("continue", False, IN.HINT), ("go on", False, IN.HINT), ("продолжай", False, IN.HINT),
    ("continue", True, IN.EXTEND_DEBATE), ("keep going", True, IN.EXTEND_DEBATE),
    ("continue the debate", True, IN.EXTEND_DEBATE), ("продолжить", True, IN.EXTEND_DEBATE),
    ("extend", False, IN.EXTEND_DEBATE), ("status", False, IN.STATUS),
    ("Tell me more about the security risks", False, IN.FOLLOW_UP), ("Why not Kafka?", True, IN.FOLLOW_UP),
])
def test_after_a_completed_answer_a_keyword_is_never_a_new_problem(text, extendable, intent):
    assert decide_intent(text, None, S.COMPLETED, extendable=extendable) is intent


@pytest.mark.parametrize(("text", "intent"), [
    ("retry", IN.HINT), ("try again", IN.HINT), ("continue", IN.HINT), ("resume", IN.HINT), ("more", IN.HINT),
    ("cancel", IN.HINT), ("stop", IN.HINT), ("skip", IN.HINT), ("later", IN.HINT), ("продолжить", IN.HINT),
    ("status", IN.STATUS), ("personas", IN.PERSONAS), ("Should we adopt Kafka?", IN.NEW_PROBLEM),
])
def test_after_a_cancel_a_keyword_is_never_a_new_problem(text, intent):
    assert decide_intent(text, None, S.CANCELLED) is intent
    assert decide_intent(text, None, S.CANCELLED, stopped=True) is intent  # a cancel clears nothing, still cancelled


@pytest.mark.parametrize("text", ["retry", "continue", "skip", "more"])
def test_without_a_session_a_keyword_still_starts_one(text):
    """No session to act on: the text is the problem (the chat has nothing else it could mean)."""
    assert decide_intent(text, None, None) is IN.NEW_PROBLEM
