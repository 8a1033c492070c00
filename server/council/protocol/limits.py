"""Text limits shared by every surface of the wire contract: a chat turn, an answer to a clarifying question (by
``council/answer`` or through MCP elicitation), a consult's problem, attached context. One definition each."""

from __future__ import annotations

MAX_TEXT = 20_000  # characters in one chat turn, one answer, one consult problem
MAX_CONTEXT = 200_000  # characters of attached context in one turn or consult
MAX_CHOICE = 120  # characters of a choice's value
MAX_MODEL_SPECS = 12  # `models` of a turn: one per seat at most (max_personas is 12)
