"""Turns a streaming JSON reply (a persona's, or the moderator's answer to a follow-up) into append-only markdown,
so users watch advice, not braces (the reply so far is read by ``council.session.calls.parsing.PartialObject``).

Fields render in a fixed order and only text extending what was sent is emitted: rendering holds back at the first
unfinished field, so output is never retracted; fields sent in full are not rendered again, and while a key or a
held-back list item grows, or once every field shown was sent in full (a chat line shows the position only), nothing
is parsed again.
"""

from __future__ import annotations

from typing import Any

from council.session.calls.parsing import Members, Parsed, PartialObject
from council.words import t

Fields = tuple[tuple[str, str | None], ...]  # (field, heading) in render order; None heading = a plain paragraph

FIELDS: Fields = (  # a persona's reply
    ("position", None),
    ("summary", "Summary"),
    ("advice", "Advice"),
    ("risks", "Risks"),
    ("next_steps", "Next steps"),
)

Limits = dict[str, int]  # field → maxItems (lists) or maxLength (strings), as the parser will enforce them


def limits_of(schema: dict[str, Any]) -> Limits:
    return {key: spec.get("maxItems", spec.get("maxLength")) for key, spec in schema.get("properties", {}).items()
            if "maxItems" in spec or "maxLength" in spec}


def _field(value: Any, complete: bool, heading: str | None, limit: int | None) -> tuple[list[str], bool]:
    """The markdown of one field and whether it is complete (rendering stops at an incomplete field)."""
    out: list[str] = []
    if isinstance(value, str):
        out.append(value.strip()[:limit])  # limit None: all of it
        if complete:
            out.append("\n\n")
    elif isinstance(value, list):
        items = [v for v in value if isinstance(v, str) and v.strip()]
        if limit is not None and len(items) > limit:
            items, complete = items[:limit], True
        if items or complete:
            if items:
                out.append(f"**{heading}**\n")
            ready = items if complete else items[:-1]
            out.extend(f"- {v.strip()}\n" for v in ready)
            if complete and items:
                out.append("\n")
    return out, complete


def _render_from(start: int, obj: dict[str, Any], done: set[str], final: bool, limits: Limits,
                 fields: Fields) -> tuple[str, int, int]:
    """Markdown of fields[start:], stopping at the first unfinished one; how many of them are complete, and the
    length of their markdown."""
    out: list[str] = []
    complete_fields = complete_len = 0
    for key, heading in fields[start:]:
        if key not in obj:
            if final:
                continue
            break
        shown = t(f"field.{key}") if heading is not None else None  # in the session's language
        pieces, complete = _field(obj[key], final or key in done, shown, limits.get(key))
        out.extend(pieces)
        if not complete:
            break
        complete_fields += 1
        complete_len += sum(map(len, pieces))
    return "".join(out), complete_fields, complete_len


def render(obj: dict[str, Any], done: set[str], *, final: bool = False, limits: Limits | None = None,
           fields: Fields = FIELDS) -> str:
    """Markdown for the fields seen so far, stopping at the first unfinished one.

    Partial strings are shown without trailing whitespace and everything is cut to the schema's limits, so the
    streamed text is always a prefix of the final render.
    """
    return _render_from(0, obj, done, final, limits or {}, fields)[0]


def _held_back(members: Members, obj: dict[str, Any]) -> int:
    """Where the string being read starts if its growth cannot change the render: a key (not in the parse until
    it ends), or the last item of the open list once it shows text (the render holds an unfinished item back);
    else -1."""
    if members.string < 0:
        return -1
    if members.depth == 1:
        return members.string if members.open is None else -1
    value = obj.get(members.key) if members.depth == 2 and members.key is not None else None
    if isinstance(value, list) and value and isinstance(value[-1], str) and value[-1].strip():
        return members.string
    return -1


class LiveRenderer:
    """Feed raw chunks, get the markdown to append (``fields``: which reply fields to show, in order)."""

    def __init__(self, limits: Limits | None = None, fields: Fields = FIELDS) -> None:
        self.limits = limits or {}
        self.fields = fields
        self._prefix = PartialObject()
        self._frozen = 0  # FIELDS sent in full: never rendered again
        self._frozen_text = ""  # their markdown, the start of what was sent
        self._shown = ""  # what was sent after it
        self._parsed: Parsed | None = None  # at the last render
        self._quiet = -1  # where the list item starts whose growth cannot change the render, or -1

    @property
    def sent(self) -> str:
        return self._frozen_text + self._shown

    def feed(self, chunk: str) -> str:
        p = self._prefix
        p.feed(chunk)
        if p.members.string == self._quiet >= 0:
            return ""  # inside an unfinished list item that already shows text: held back, so nothing changes
        if self._frozen == len(self.fields) and not p.reassigned:
            return ""  # every field shown was sent in full: the rest of the reply cannot change the render
        obj, done = parsed = p.parse()
        self._quiet = _held_back(p.members, obj)
        if p.reassigned:  # a key came twice: an earlier field may change, so render everything as it stands
            return self._extend(render(obj, done, limits=self.limits, fields=self.fields))
        if parsed == self._parsed:
            return ""
        self._parsed = parsed
        tail, fields, length = _render_from(self._frozen, obj, done, False, self.limits, self.fields)
        shown = self._shown
        new = ""
        if len(tail) > len(shown) and tail.startswith(shown):
            new = tail[len(shown):]
            self._shown = shown = tail
        if fields and shown == tail:  # sent in full and final: never rendered again
            self._frozen += fields
            self._frozen_text += tail[:length]
            self._shown = tail[length:]
        return new

    def finish(self, obj: dict[str, Any]) -> str:
        return self._extend(render(obj, set(obj), final=True, limits=self.limits, fields=self.fields))

    def _extend(self, text: str) -> str:
        """The part of ``text`` past what was sent, if ``text`` extends it (rendered from the first field)."""
        sent = self.sent
        self._frozen, self._frozen_text = 0, ""
        if len(text) > len(sent) and text.startswith(sent):
            self._shown = text
            return text[len(sent):]
        self._shown = sent
        return ""
