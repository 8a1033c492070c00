"""Whether a turn typed while a clarifying question is open reads like a fresh problem rather than its answer.

Recording a new question as the answer to "What timeline are you working with?" poisons the whole session, so
such a turn is confirmed with the user first. The test is deliberately narrow, because asking back about a real
answer is an annoyance too:

- an explicit "new question: …" (English or Russian) always counts;
- never: short turns (fewer than :data:`MIN_WORDS` words, even ending with "?"), turns that start with yes/no,
  a number or one of the question's choices, and questions about the question ("What do you mean by…");
- otherwise the turn counts when it is phrased as a question of its own — it ends with "?", or opens like one
  ("Should we…", "How do we…", "What's the best way…", "Стоит ли…") and asks nothing else on the way (a
  "Should we even…? We have no budget." is an answer that thinks aloud) — and shares almost no content words
  with the open question, its choices and its default (an answer talks about what was asked; a new problem
  about something else).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from council.session.state.entities import ClarificationQuestion
from council.word_match import content_stems, words

MIN_WORDS = 6  # a question of its own is longer than "This quarter?" or "Maybe cut costs?"
MAX_OVERLAP = 0.2  # at most this share of the turn's content words may come from the question and its choices

_EXPLICIT = re.compile(
    r"^\s*(?:a\s+|one\s+more\s+|another\s+|new\s+|different\s+|separate\s+)(?:question|problem|topic|request)\s*[:—–-]"
    r"|^\s*(?:новый|другой|ещё\s+один|еще\s+один)\s+(?:вопрос|запрос|тема)\s*[:—–-]",
    re.IGNORECASE)

def _phrases(*phrases: str) -> tuple[str, ...]:
    """Phrases as :func:`words` reads a turn ("what's" → "whats")."""
    return tuple(" ".join(words(p)) for p in phrases)


_OPENERS = _phrases(
    "should we", "should i", "shall we", "how do we", "how do i", "how can we", "how can i", "how should we",
    "how should i", "how would we", "how to", "what's the best", "what is the best", "whats the best",
    "what should we", "what should i", "what would you recommend", "which is better", "which should we",
    "which one should", "is it worth", "is it a good idea", "is it better", "would it make sense",
    "does it make sense", "do we need to", "do we really need", "can we", "could we", "when should we",
    "where should we", "why should we", "help me decide", "help me choose", "i need advice", "i want advice",
    "we are considering", "we're considering", "we are thinking about", "we're thinking about",
    "i'm thinking about", "i am thinking about", "we are planning to", "we're planning to",
    "стоит ли", "как нам", "как лучше", "как мне", "что лучше", "нужно ли", "надо ли", "можно ли",
    "какой лучше", "какую лучше", "какое лучше", "посоветуйте", "подскажите",
)

_ANSWER_STARTS = _phrases("yes", "no", "nope", "yeah", "yep", "sure", "maybe", "probably", "definitely", "not really",
                  "да", "нет", "наверное", "скорее", "возможно")

_META = _phrases("what do you mean", "do you mean", "you mean", "what does that mean", "what does it mean",
         "i don't understand", "not sure what you", "что значит", "что вы имеете", "не понял", "не поняла")


def _starts(norm: str, prefixes: Iterable[str]) -> bool:
    return any(p and (norm == p or norm.startswith(p + " ")) for p in prefixes)


def _choice_names(question: ClarificationQuestion) -> list[str]:
    return [" ".join(words(name)) for c in question.choices for name in (c.label, c.value)]


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
    if _starts(norm, _ANSWER_STARTS) or _starts(norm, _META) or _starts(norm, _choice_names(question)):
        return False
    asks = text.rstrip().endswith(("?", "？")) or (_starts(norm, _OPENERS) and "?" not in text)
    if not asks:
        return False
    return overlap(text, question) <= MAX_OVERLAP
