"""What the user told a session the sidecar no longer has (issue 21: reloads keep what the user said), as
``council/turn``'s ``earlier`` field carries it from the chat history."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from council.camel import CamelModel
from council.protocol.limits import MAX_TEXT

EarlierReason = Literal["unknown_session", "expired"]


class EarlierAnswer(CamelModel):
    """One thing the user told a session the sidecar no longer has: a question and the reply to it."""

    question: str = Field(min_length=1, max_length=MAX_TEXT)
    action: Literal["answer", "skip", "skip_all"] = "answer"
    answer: str | None = Field(None, min_length=1, max_length=MAX_TEXT,
                               description="The reply, for `answer` (the text, or a choice's label).")


class EarlierSession(CamelModel):
    """What the user told a session that is gone (a reload without `keepAcrossReloads`), as the chat history shows
    it: its question and the replies to its clarifying questions. A new session started with it reuses the replies
    whose questions it asks again (and, for a bare "continue", the earlier question), says that the earlier session is
    gone (first) and what it reused (last), each in one line."""

    problem: str | None = Field(None, max_length=MAX_TEXT)
    answers: list[EarlierAnswer] = Field(default_factory=list, max_length=30)
    reason: EarlierReason = Field("unknown_session", description="Why the earlier session is gone, as the error "
                                  "that refused it said (`details.reason`); the new session says so in its first "
                                  "event (`session.replaced`).")
