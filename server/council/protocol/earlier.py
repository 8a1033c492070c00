"""What the user told a session the sidecar no longer has (``TurnParams.earlier``): the question and the replies the
chat history shows, so a new session can reuse them (``council.session.earlier``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from council.camel import CamelModel
from council.protocol.limits import MAX_TEXT


class EarlierAnswer(CamelModel):
    """One thing the user told a session the sidecar no longer has: a question and the reply to it."""

    question: str = Field(min_length=1, max_length=MAX_TEXT)
    action: Literal["answer", "skip", "skip_all"] = "answer"
    answer: str | None = Field(None, min_length=1, max_length=MAX_TEXT,
                               description="The reply, for `answer` (the text, or a choice's label).")


class EarlierSession(CamelModel):
    """What the user told a session that is gone (a reload without `keepAcrossReloads`), as the chat history shows
    it: its question and the replies to its clarifying questions. A new session started with it reuses the replies
    whose questions it asks again (and, for a bare "continue", the earlier question) and says so in one line."""

    problem: str | None = Field(None, max_length=MAX_TEXT)
    answers: list[EarlierAnswer] = Field(default_factory=list, max_length=30)
