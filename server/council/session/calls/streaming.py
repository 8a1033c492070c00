"""Stable-order streaming for concurrent personas.

Personas of a cycle run at once, but the user reads one at a time: the persona at the head of the order streams
live; the others' text is buffered and flushed when they reach the head. Completions are committed (journal +
``persona.completed``) in the same order, so turn sequence numbers and events are the same whatever the timing.
The text passed on is the model's raw output; the observer renders it. A stream made ``held`` (a cycle that runs
beside the moderator's options call) passes nothing on and commits nothing until :meth:`OrderedStream.release`.
"""

from __future__ import annotations

from collections.abc import Callable

from council.session.state.runtime import Turn


class OrderedStream:
    def __init__(self, rt: Turn, order: list[str], cycle: int, *, held: bool = False) -> None:
        self.rt = rt
        self.order = order
        self.cycle = cycle
        self.held = held
        self.head = 0
        self.buffers: dict[str, list[str]] = {name: [] for name in order}
        self.commits: dict[str, Callable[[], None]] = {}

    def _emit(self, name: str, text: str) -> None:
        self.rt.persona_text(name, self.cycle, text)

    def delta(self, name: str, text: str) -> None:
        if not text:
            return
        if not self.held and self.head < len(self.order) and self.order[self.head] == name:
            self._emit(name, text)
        else:
            self.buffers[name].append(text)

    def finish(self, name: str, commit: Callable[[], None]) -> None:
        """``commit`` records the persona's result; it runs when the persona reaches the head."""
        self.commits[name] = commit
        if not self.held:
            self._advance()

    def release(self) -> None:
        """Pass on what a held stream kept, commit the personas that finished, and go on live from there."""
        self.held = False
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
