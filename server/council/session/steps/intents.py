"""What a chat turn means: the thin client forwards raw text (and maybe a slash command); this decides. What each
word does is in README ("Using it") and docs/protocol.md (``council/turn``); the words are in ``intents.toml``.

Keywords match the whole trimmed turn, so "skip" skips but "skip the migration if it is risky" is an answer; a slash
command always wins. :func:`looks_like_new_problem` is deliberately narrow: recording a new question as the answer
poisons the session, but asking back about a real answer is an annoyance too. So short turns, turns that start with
yes/no, a number or a choice, and questions about the question never count; a turn counts when it is phrased as a
question of its own and shares almost no content words with the open question, its choices and its default (an answer
talks about what was asked).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import Any

from council.config import tomllib
from council.session.state.entities import ClarificationQuestion, SessionStatus
from council.word_match import content_stems, words


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
    STOP = "stop"
    STATUS = "status"
    PERSONAS = "personas"
    RETRY = "retry"
    CONFIRM_NEW = "confirm_new"  # typed while a question is open, it reads like a new problem: ask which it is
    FOLLOW_UP = "follow_up"  # plain text after a completed session: the moderator answers it from that session
    HINT = "hint"  # a keyword with nothing to act on in this state: a note says what is possible (nothing runs)
    REVISIT = "revisit"  # ask a skipped or deferred question again after the answer (slash command only)


# the slash commands (the wire's TurnCommand values) named otherwise than their intent; the rest are its value
_COMMANDS = {"new": Intent.NEW_PROBLEM, "skipAll": Intent.SKIP_ALL, "more": Intent.MORE_QUESTIONS,
             "extend": Intent.EXTEND_DEBATE}

# keywords that act while a question is open (the rest — "extend", "retry" … — are answers)
_WHILE_CLARIFYING = frozenset({Intent.SKIP, Intent.SKIP_ALL, Intent.DEFER, Intent.MORE_QUESTIONS, Intent.CANCEL,
                               Intent.STOP, Intent.STATUS, Intent.PERSONAS})

_TRIM = re.compile(r"^[\s/]+|[\s.!?…]+$")

# keywords that still act after a completed or cancelled session (slash commands act everywhere)
_AFTER_THE_END = {SessionStatus.COMPLETED: (Intent.EXTEND_DEBATE, Intent.STATUS, Intent.PERSONAS),
                  SessionStatus.CANCELLED: (Intent.STATUS, Intent.PERSONAS)}
# keywords that act while the council works, or after it stopped or stalled
_WHILE_WORKING = frozenset({Intent.CANCEL, Intent.STOP, Intent.STATUS, Intent.PERSONAS, Intent.RETRY,
                            Intent.EXTEND_DEBATE})


@functools.cache
def _words() -> dict[str, Any]:
    """The words of ``intents.toml`` (read on the first turn): keywords by intent, the words that resume (``again``:
    the retry keywords, which never extend) and the phrases a turn starts with, as :func:`words` reads a turn."""
    data = tomllib.loads(Path(__file__).with_name("intents.toml").read_text(encoding="utf-8"))
    again, phrases = frozenset(data["keywords"]["retry"]), data["phrases"]
    return {"keywords": {Intent(k): tuple(v) for k, v in data["keywords"].items()}, "again": again,
            "resume": again | set(phrases["resume"]),
            **{k: tuple(" ".join(words(p)) for p in phrases[k]) for k in ("openers", "answer_starts", "meta")}}


def normalized(text: str) -> str:
    """The turn as keywords are matched: trimmed, lower case, one space between words, plain apostrophes."""
    return " ".join(_TRIM.sub("", text).lower().replace("’", "'").split())


def is_resume_word(text: str) -> bool:
    """The whole turn is a resume word ("continue", "go on", "продолжай" …)."""
    return normalized(text) in _words()["resume"]


def keyword_intent(text: str) -> Intent | None:
    norm = normalized(text)
    return next((intent for intent, keywords in _words()["keywords"].items() if norm in keywords), None)


def decide_intent(text: str, command: str | None, status: SessionStatus | None,
                  question: ClarificationQuestion | None = None, *, stopped: bool = False,
                  extendable: bool = False) -> Intent:
    """The intent of a turn (``status`` None: no session yet). A bare keyword never becomes the problem of a new
    session once a session exists."""
    if command is not None:
        name = str(getattr(command, "value", command))
        return _COMMANDS.get(name) or Intent(name)
    found, norm = keyword_intent(text), normalized(text)
    if status is None:
        return found if found in (Intent.STATUS, Intent.PERSONAS) else Intent.NEW_PROBLEM
    if status in _AFTER_THE_END:  # a completed session answers follow-ups, a cancelled one takes a new problem
        if found in _AFTER_THE_END[status]:
            return found
        if status is SessionStatus.COMPLETED and extendable and norm in _words()["resume"] - _words()["again"]:
            return Intent.EXTEND_DEBATE  # "continue" after a debate that stopped at its cycle limit
        if found is not None or norm in _words()["resume"]:
            return Intent.HINT  # a keyword with nothing to act on
        return Intent.FOLLOW_UP if status is SessionStatus.COMPLETED else Intent.NEW_PROBLEM
    if stopped and norm in _words()["resume"]:
        return Intent.RETRY  # the status of a stopped session does not change: it resumes from any of them
    if status is SessionStatus.CLARIFYING:
        if found in _WHILE_CLARIFYING:
            return found
        if question is not None and looks_like_new_problem(text, question):
            return Intent.CONFIRM_NEW
        return Intent.ANSWER
    # created / debating / final: a turn arrives while the council works, after a stop or after every advisor
    # failed (a stall): resume words resume, and plain text is a new problem
    if norm in _words()["resume"]:
        return Intent.RETRY
    if found in _WHILE_WORKING:
        return found
    return Intent.HINT if found else Intent.NEW_PROBLEM


MIN_WORDS = 6  # a question of its own is longer than "This quarter?" or "Maybe cut costs?"
MAX_OVERLAP = 0.2  # at most this share of the turn's content words may come from the question and its choices

_EXPLICIT = re.compile(
    r"^\s*(?:a\s+|one\s+more\s+|another\s+|new\s+|different\s+|separate\s+)(?:question|problem|topic|request)\s*[:—–-]"
    r"|^\s*(?:новый|другой|ещё\s+один|еще\s+один)\s+(?:вопрос|запрос|тема)\s*[:—–-]",
    re.IGNORECASE)


def _starts(norm: str, prefixes: Iterable[str]) -> bool:
    return any(p and (norm == p or norm.startswith(p + " ")) for p in prefixes)


def overlap(text: str, question: ClarificationQuestion) -> float:
    """The share of the turn's content words that the question, its choices or its default mention."""
    mine = content_stems(text)
    if not mine:
        return 1.0
    theirs = content_stems(" ".join([question.question, question.default_assumption,
                                     *(f"{c.label} {c.value}" for c in question.choices)]))
    return len(mine & theirs) / len(mine)


def looks_like_new_problem(text: str, question: ClarificationQuestion) -> bool:
    """True when ``text``, typed while ``question`` is open, reads like a fresh problem rather than its answer."""
    if _EXPLICIT.match(text):
        return True
    ws = words(text)
    norm = " ".join(ws)
    if len(ws) < MIN_WORDS or ws[0].isdigit():
        return False
    choices = [" ".join(words(name)) for c in question.choices for name in (c.label, c.value)]
    if _starts(norm, _words()["answer_starts"]) or _starts(norm, _words()["meta"]) or _starts(norm, choices):
        return False
    asks = text.rstrip().endswith(("?", "？")) or (_starts(norm, _words()["openers"]) and "?" not in text)
    if not asks:
        return False
    return overlap(text, question) <= MAX_OVERLAP
