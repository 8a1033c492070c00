"""Decision memory (opt-in, off by default): the council's past decisions in the workspace's
``.council/decisions.sqlite3`` (stdlib ``sqlite3``; nothing leaves the machine).

A completed session is kept as a :class:`~council.memory.models.Decision` (question, options, outcome and tally, key
arguments, assumptions, dissent, date); a new session is offered the most similar ones as context
(:class:`~council.memory.store.SessionMemory`, embeddings when the model is warm, else TF-IDF). ``council decisions``
and the MCP tool ``council_decisions`` read it; nothing is written unless memory is on.
"""

from council.memory.store import MemoryRefused, MemoryStore, SessionMemory

__all__ = ["MemoryRefused", "MemoryStore", "SessionMemory"]
