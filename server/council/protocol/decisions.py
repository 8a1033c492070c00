"""The decision memory's query tool (MCP ``council_decisions``): params and result, snake_case like the consult
tools' payloads."""

from __future__ import annotations

from pydantic import Field

from council.camel import SnakeModel
from council.memory.models import Decision


class DecisionsParams(SnakeModel):
    """Search the workspace's past council decisions: by ``query`` (most similar first), one by ``decision_id``, or
    the newest ones (neither)."""

    query: str | None = Field(None, min_length=1, max_length=2000, description="A question or topic to look for.")
    decision_id: str | None = Field(None, min_length=4, max_length=100,
                                    description="One decision's id (or a prefix of it that names exactly one).")
    limit: int = Field(5, ge=1, le=50, description="At most this many decisions.")


class DecisionsResult(SnakeModel):
    decisions: list[Decision]
    similarity: list[float] | None = Field(None, description="Each decision's similarity to `query` (searches).")
    method: str | None = Field(None, description="How similarity was judged: embeddings, tfidf or keywords.")
    markdown: str = ""
