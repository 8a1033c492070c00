"""Stable-order streaming for concurrent personas.

Personas of a cycle run at once, but the user reads one at a time: the persona at the head of the order streams
live; the others' text is buffered and flushed when they reach the head. Completions are committed (journal +
``persona.completed``) in the same order, so turn sequence numbers and events are the same whatever the timing.

Raw model chunks (``chunk``) are rendered to markdown as they arrive only for the persona at the head; for the
others they wait, and are rendered in one go when needed (at the flush, or before any text that follows them), so
nobody pays for rendering what nobody can see yet. The renderer is append-only, so the text is the same.
"""

from __future__ import annotations

from collections.abc import Callable

from council.protocol.events import PersonaDelta
from council.session.runtime import SessionRuntime

Render = Callable[[str], str]


class OrderedStream:
    def __init__(self, rt: SessionRuntime, order: list[str], cycle: int) -> None:
        self.rt = rt
        self.order = order
        self.cycle = cycle
        self.head = 0
        self.buffers: dict[str, list[str]] = {name: [] for name in order}
        self.commits: dict[str, Callable[[], None]] = {}
        self._raw: dict[str, tuple[Render, list[str]]] = {}

    def _emit(self, name: str, text: str) -> None:
        self.rt.emit(PersonaDelta, persona=name, cycle=self.cycle, markdown=text)

    def _at_head(self, name: str) -> bool:
        return self.head < len(self.order) and self.order[self.head] == name

    def chunk(self, name: str, raw: str, render: Render) -> None:
        """A raw chunk of ``name``'s reply, turned into markdown by ``render`` (now at the head, later elsewhere)."""
        if self._at_head(name):
            self.delta(name, render(raw))
        elif raw:
            self._raw.setdefault(name, (render, []))[1].append(raw)

    def delta(self, name: str, text: str) -> None:
        self._settle(name)
        if not text:
            return
        if self._at_head(name):
            self._emit(name, text)
        else:
            self.buffers[name].append(text)

    def rendered(self, name: str, make: Callable[[], str]) -> None:
        """Text that ``make`` renders from everything ``name`` sent so far (its final markdown, say)."""
        self._settle(name)
        self.delta(name, make())

    def _settle(self, name: str) -> None:
        """Render the raw chunks still waiting for ``name``, in one go, into its buffer."""
        waiting = self._raw.pop(name, None)
        if waiting is not None:
            render, chunks = waiting
            text = render("".join(chunks))
            if text:
                self.buffers[name].append(text)

    def finish(self, name: str, commit: Callable[[], None]) -> None:
        """``commit`` records the persona's result; it runs when the persona reaches the head."""
        self.commits[name] = commit
        self._advance()

    def _advance(self) -> None:
        while self.head < len(self.order):
            name = self.order[self.head]
            self._settle(name)
            pending = self.buffers[name]
            if pending:
                self._emit(name, "".join(pending))
                pending.clear()
            commit = self.commits.pop(name, None)
            if commit is None:
                return
            commit()
            self.head += 1
