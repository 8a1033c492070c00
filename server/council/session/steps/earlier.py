"""Replies the user gave a session that is gone (a reload lost it), reused by the new session started in its place.

The client sends what the chat history shows (question → answer, skip or skip all). When the new session asks a
question the user already replied to — the same words, or close enough (TF-IDF cosine of at least
:data:`SAME_QUESTION`) — the reply is applied at once, as if the user had given it again; an earlier "skip all"
also skips a question that has no earlier reply. Each earlier reply is used once. What was reused is counted, for
the one line the turn's result says it in. (The application: :func:`council.session.steps.answers.reuse`.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from council.personas.tfidf import TfidfRanker
from council.session.state.entities import ClarificationQuestion
from council.word_match import words

SAME_QUESTION = 0.5


@dataclass(frozen=True)
class EarlierReply:
    question: str
    action: str  # answer | skip | skip_all
    answer: str | None = None


@dataclass
class Earlier:
    """The earlier replies still unused, and what the new session took from them."""

    replies: list[EarlierReply]
    again: bool = False  # the session took up the earlier question (a bare "continue")
    answered: int = 0
    skipped: int = 0
    unused: list[EarlierReply] = field(init=False)

    @classmethod
    def of(cls, earlier: Any, text: str) -> Earlier | None:
        """From council/turn's ``EarlierSession`` (None: no earlier session) and the new session's question."""
        if earlier is None:
            return None
        again = bool(earlier.problem) and words(earlier.problem) == words(text)
        return cls([EarlierReply(a.question, a.action, a.answer) for a in earlier.answers], again=again)

    def __post_init__(self) -> None:
        self.unused = [r for r in self.replies if r.action != "answer" or (r.answer or "").strip()]

    @property
    def reused(self) -> int:
        return self.answered + self.skipped

    def match(self, question: ClarificationQuestion) -> EarlierReply | None:
        """The unused earlier reply to ``question`` (the same question, or one close enough), else an unused
        "skip all" (the user skipped everything left), else None."""
        if not self.unused:
            return None
        same = [r for r in self.unused if words(r.question) == words(question.question)]
        if same:
            return same[0]
        scores = TfidfRanker().score(question.question, [r.question for r in self.unused])
        best = max(range(len(scores)), key=lambda i: scores[i])
        if scores[best] >= SAME_QUESTION:
            return self.unused[best]
        return next((r for r in self.unused if r.action == "skip_all"), None)
