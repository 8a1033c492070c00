"""Stable-order streaming for concurrent personas.

Personas of a cycle run at once, but the user reads one at a time: the persona at the head of the order streams
live; the others' text is buffered and flushed when they reach the head. Completions are committed (journal +
``persona.completed``) in the same order, so turn sequence numbers and events are the same whatever the timing.
The text passed on is the model's raw output; the observer renders it.
"""

from __future__ import annotations

from collections.abc import Callable

from council.session.runtime import SessionRuntime


class OrderedStream:
    def __init__(self, rt: SessionRuntime, order: list[str], cycle: int) -> None:
        self.rt = rt
        self.order = order
        self.cycle = cycle
        self.head = 0
        self.buffers: dict[str, list[str]] = {name: [] for name in order}
        self.commits: dict[str, Callable[[], None]] = {}

    def _emit(self, name: str, text: str) -> None:
        self.rt.persona_text(name, self.cycle, text)

    def delta(self, name: str, text: str) -> None:
        if not text:
            return
        if self.head < len(self.order) and self.order[self.head] == name:
            self._emit(name, text)
        else:
            self.buffers[name].append(text)

    def finish(self, name: str, commit: Callable[[], None]) -> None:
        """``commit`` records the persona's result; it runs when the persona reaches the head."""
        self.commits[name] = commit
        self._advance()

    def _advance(self) -> None:
        while self.head < len(self.order):
            name = self.order[self.head]
            pending = self.buffers[name]
            if pending:
                self._emit(name, "".join(pending))
                pending.clear()
            commit = self.commits.pop(name, None)
            if commit is None:
                return
            commit()
            self.head += 1
