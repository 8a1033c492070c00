"""What a chat turn means: the thin client forwards raw text (and maybe a slash command); this decides.

Keywords are matched on the whole trimmed turn (English and Russian), so "skip" skips but "skip the migration
if it is risky" is an answer. A slash command always wins over the text. While a question is open only the
keywords that concern it (skip, skip all, defer, more questions) and cancel, status and personas act; any other
text is the answer — unless it reads like a new problem (``misreading``), which is confirmed first. After a
completed session, plain text is a follow-up answered in that session's context.
"""

from __future__ import annotations

import re
from enum import Enum

from council.session.entities import ClarificationQuestion, SessionStatus
from council.session.misreading import looks_like_new_problem


class Intent(str, Enum):
    """What the sidecar decided a turn means."""

    NEW_PROBLEM = "new_problem"
    ANSWER = "answer"
    SKIP = "skip"
    SKIP_ALL = "skip_all"
    DEFER = "defer"
    MORE_QUESTIONS = "more_questions"
    EXTEND_DEBATE = "extend_debate"
    CANCEL = "cancel"
    STATUS = "status"
    PERSONAS = "personas"
    RETRY = "retry"
    CONFIRM_NEW = "confirm_new"  # typed while a question is open, it reads like a new problem: ask which it is
    FOLLOW_UP = "follow_up"  # plain text after a completed session: the moderator answers it from that session


# slash command (the wire's TurnCommand value) → intent
_COMMANDS: dict[str, Intent] = {
    "new": Intent.NEW_PROBLEM,
    "answer": Intent.ANSWER,
    "skip": Intent.SKIP,
    "skipAll": Intent.SKIP_ALL,
    "more": Intent.MORE_QUESTIONS,
    "defer": Intent.DEFER,
    "extend": Intent.EXTEND_DEBATE,
    "cancel": Intent.CANCEL,
    "status": Intent.STATUS,
    "personas": Intent.PERSONAS,
    "retry": Intent.RETRY,
}

_KEYWORDS: dict[Intent, tuple[str, ...]] = {
    Intent.SKIP_ALL: ("skip all", "skip the rest", "skip remaining", "skip all questions", "no more questions",
                      "just answer", "пропустить все", "пропусти все", "пропустить всё", "пропусти всё"),
    Intent.SKIP: ("skip", "pass", "skip this", "skip question", "i don't know", "dont know", "don't know",
                  "no idea", "пропустить", "пропусти", "пропуск", "не знаю", "дальше"),
    Intent.DEFER: ("later", "defer", "ask me later", "ask later", "позже", "потом", "отложить"),
    Intent.MORE_QUESTIONS: ("more questions", "more", "ask more", "ask me more", "ask more questions",
                            "ещё вопросы", "еще вопросы", "больше вопросов"),
    Intent.EXTEND_DEBATE: ("extend debate", "extend the debate", "extend", "debate more", "continue debate",
                           "keep debating", "продлить", "продлить дебаты", "продолжить дебаты"),
    Intent.CANCEL: ("cancel", "stop", "abort", "cancel session", "отмена", "отменить", "стоп"),
    Intent.STATUS: ("status", "where are we", "статус"),
    Intent.PERSONAS: ("personas", "who is on the council", "who's on the council", "персоны"),
    Intent.RETRY: ("retry", "try again", "повторить", "ещё раз", "еще раз"),
}

# keywords that act while a question is open (the rest — "extend", "retry" … — are answers)
_WHILE_CLARIFYING = frozenset({Intent.SKIP, Intent.SKIP_ALL, Intent.DEFER, Intent.MORE_QUESTIONS, Intent.CANCEL,
                               Intent.STATUS, Intent.PERSONAS})

_TRIM = re.compile(r"^[\s/]+|[\s.!?…]+$")


def keyword_intent(text: str) -> Intent | None:
    norm = " ".join(_TRIM.sub("", text).lower().replace("’", "'").split())
    for intent, words in _KEYWORDS.items():
        if norm in words:
            return intent
    return None


def decide_intent(text: str, command: str | None, status: SessionStatus | None,
                  question: ClarificationQuestion | None = None) -> Intent:
    """The intent of a turn given its slash command (if any), the session's status (None: no session yet) and
    the question waiting for an answer (if any)."""
    if command is not None:
        return _COMMANDS[str(getattr(command, "value", command))]
    found = keyword_intent(text)
    if status is None:
        return found if found in (Intent.STATUS, Intent.PERSONAS) else Intent.NEW_PROBLEM
    if status is SessionStatus.CLARIFYING:
        if found in _WHILE_CLARIFYING:
            return found
        if question is not None and looks_like_new_problem(text, question):
            return Intent.CONFIRM_NEW
        return Intent.ANSWER
    if status is SessionStatus.COMPLETED:
        if found in (Intent.EXTEND_DEBATE, Intent.STATUS, Intent.PERSONAS):
            return found
        return Intent.NEW_PROBLEM if found else Intent.FOLLOW_UP
    if status is SessionStatus.CANCELLED:
        return found if found in (Intent.STATUS, Intent.PERSONAS) else Intent.NEW_PROBLEM
    # created / debating / final: a turn arrives while the council works (or after every advisor failed)
    if found in (Intent.CANCEL, Intent.STATUS, Intent.PERSONAS, Intent.RETRY, Intent.EXTEND_DEBATE):
        return found
    return Intent.NEW_PROBLEM
