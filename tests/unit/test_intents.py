"""What a chat turn means: keywords (English, Russian), slash commands, and the session status."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from council.protocol.methods import Intent, TurnCommand
from council.session.entities import Choice, ClarificationQuestion, Participant, ParticipantType
from council.session.entities import SessionStatus as S
from council.session.intents import decide_intent, keyword_intent

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
        ("Stop!", IN.CANCEL),
        ("отмена", IN.CANCEL),
        ("стоп", IN.CANCEL),
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
        TurnCommand.STATUS: IN.STATUS,
        TurnCommand.PERSONAS: IN.PERSONAS,
        TurnCommand.RETRY: IN.RETRY,
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
    assert decide_intent("skip", None, S.COMPLETED) is IN.NEW_PROBLEM  # a keyword with nothing to act on
    assert decide_intent("more questions", None, S.COMPLETED) is IN.NEW_PROBLEM


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
    assert decide_intent("retry", None, S.CANCELLED) is IN.NEW_PROBLEM
    assert decide_intent("extend", None, S.CANCELLED) is IN.NEW_PROBLEM


@pytest.mark.parametrize("status", [S.CREATED, S.DEBATING, S.FINAL])
def test_while_the_council_works(status):
    for text, intent in [
        ("cancel", IN.CANCEL),
        ("retry", IN.RETRY),
        ("extend debate", IN.EXTEND_DEBATE),
        ("статус", IN.STATUS),
    ]:
        assert decide_intent(text, None, status) is intent
    assert decide_intent("skip", None, status) is IN.NEW_PROBLEM
