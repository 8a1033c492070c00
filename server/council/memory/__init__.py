"""Decision memory (opt-in): the council's past decisions in ``<workspace>/.council/decisions.sqlite3``, offered to
new sessions as context. See README, "Evidence, transcripts and decision memory".
"""

from council.memory.store import MemoryRefused, MemoryStore, SessionMemory

__all__ = ["MemoryRefused", "MemoryStore", "SessionMemory"]
