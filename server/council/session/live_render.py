"""Turns a streaming JSON reply (a persona's, or the moderator's answer to a follow-up) into append-only markdown,
so users watch advice, not braces.

Chunks go to an incremental parser that reads each character once and keeps its state between chunks (the values
seen so far, which keys are complete); the fields are rendered in a fixed order, and only text that extends what
was already sent is emitted. Rendering holds back at the first field that is not finished, so the output never has
to be retracted, and fields already sent in full are not rendered again. The cost of a reply is linear in its
length, whatever the size of the chunks.

``parse_prefix(text)`` parses a whole prefix at once with the same parser (the salvage of cut-off replies uses it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator
from typing import Any

from council.words import t

Fields = tuple[tuple[str, str | None], ...]  # (field, heading) in render order; None heading = a plain paragraph

FIELDS: Fields = (  # a persona's reply
    ("position", None),
    ("summary", "Summary"),
    ("advice", "Advice"),
    ("risks", "Risks"),
    ("next_steps", "Next steps"),
)

_WS = " \t\r\n,"
_SPECIAL = re.compile(r'["\\]')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}
Publish = Callable[[Any], None]
Waiting = Generator[None, None, Any]  # a parse step: yields while it waits for more text, returns its value


class PrefixParser:
    """Parses the prefix of a JSON object incrementally: ``feed`` chunks, read ``obj`` and ``done``.

    ``obj`` holds the values seen so far (an unfinished string, list or literal is there in its partial form:
    the text so far, the items so far, ``None``); ``done`` the keys whose value is complete. Text before the first
    ``{`` is skipped; parsing stops for good at anything that cannot continue an object. A ``}`` where a list item
    should start closes the list. ``reassigned`` is set when a key appears twice (its earlier value is replaced).
    ``version`` grows with every change that can alter a render — everything except an unfinished string list
    item getting longer without going from blank to non-blank (the live view holds such an item back anyway).
    """

    def __init__(self) -> None:
        self.obj: dict[str, Any] = {}
        self.done: set[str] = set()
        self.reassigned = False
        self.version = 0
        self.t = ""  # the text not consumed yet
        self.i = 0
        self._open: _Open | None = None  # the string being read, while the parser waits inside it
        self._steps: Waiting | None = self._object()
        next(self._steps)

    def feed(self, chunk: str) -> None:
        if self._steps is None or not chunk:
            return
        string = self._open
        if string is not None and self.i >= len(self.t) and '"' not in chunk and "\\" not in chunk:
            string.text += chunk  # inside a string, nothing ends or escapes: what the steps would do, directly
            if string.publish is not None:
                string.publish(string.text)
            return
        self.t = self.t[self.i:] + chunk
        self.i = 0
        try:
            self._steps.send(None)
        except StopIteration:
            self._steps = None

    # --- grammar: each step yields while the text ends, and leaves partial values published -----------------
    def _object(self) -> Waiting:
        while (start := self.t.find("{", self.i)) == -1:
            self.i = len(self.t)
            yield
        self.i = start + 1
        while True:
            yield from self._ws()
            if self.t[self.i] == "}" or self.t[self.i] != '"':
                return
            key = yield from self._string(None)
            yield from self._ws()
            if self.t[self.i] != ":":
                return
            self.i += 1
            yield from self._ws()
            if key in self.obj:
                self.reassigned = True

            def publish(value: Any, key: str = key) -> None:
                self.obj[key] = value
                self.version += 1

            publish((yield from self._value(publish)))
            self.done.add(key)

    def _ws(self) -> Waiting:
        while True:
            t, i = self.t, self.i
            while i < len(t) and t[i] in _WS:
                i += 1
            self.i = i
            if i < len(t):
                return
            yield

    def _value(self, publish: Publish) -> Waiting:
        ch = self.t[self.i]
        if ch == '"':
            return (yield from self._string(publish))
        if ch == "[":
            return (yield from self._list(publish))
        return (yield from self._literal(publish))

    def _literal(self, publish: Publish) -> Waiting:
        raw: list[str] = []
        while True:
            t, i = self.t, self.i
            end = i
            while end < len(t) and t[end] not in ",}]":
                end += 1
            raw.append(t[i:end])
            self.i = end
            if end < len(t):
                break
            publish(None)
            yield
        try:
            return json.loads("".join(raw).strip())
        except json.JSONDecodeError:
            return None

    def _list(self, publish: Publish) -> Waiting:
        self.i += 1
        items: list[Any] = []
        publish(items)
        while True:
            while True:  # whitespace; the items so far stay published while the text ends
                t, i = self.t, self.i
                while i < len(t) and t[i] in _WS:
                    i += 1
                self.i = i
                if i < len(t):
                    break
                yield
            ch = self.t[self.i]
            if ch == "]":
                self.i += 1
                return items
            if ch == "}":  # a list the model never closed: the object's end closes it
                return items
            items.append(None)
            self.version += 1
            slot = len(items) - 1

            def put(value: Any, slot: int = slot) -> None:
                before = items[slot]
                items[slot] = value
                # a string item only grows: it matters to a render when it stops being blank (or is not a string)
                if type(value) is not str or type(before) is not str or not (before.strip() or not value.strip()):
                    self.version += 1

            put((yield from self._value(put)))

    def _string(self, publish: Publish | None) -> Waiting:
        self.i += 1
        string = self._open = _Open(publish)
        while True:
            t = self.t
            while self.i < len(t):
                m = _SPECIAL.search(t, self.i)
                stop = m.start() if m else len(t)
                if stop > self.i:
                    string.text += t[self.i:stop]
                    self.i = stop
                if m is None:
                    break
                if t[stop] == '"':
                    self.i = stop + 1
                    self._open = None
                    return string.text
                decoded = _escape(t, stop)
                if decoded is None:  # the text stops inside the escape: wait for the rest
                    break
                string.text += decoded[0]
                self.i = decoded[1]
            if publish is not None:
                publish(string.text)
            yield


class _Open:
    """A string the parser is inside of: its text so far, and where to publish it."""

    __slots__ = ("publish", "text")

    def __init__(self, publish: Publish | None) -> None:
        self.publish = publish
        self.text = ""


def _escape(t: str, j: int) -> tuple[str, int] | None:
    """The escape at ``t[j]`` (a backslash): (its text, the index after it), or None if the text stops inside."""
    if j + 1 >= len(t):
        return None
    nxt = t[j + 1]
    if nxt == "u":
        return _unicode_escape(t, j)
    return _ESCAPES.get(nxt, nxt), j + 2


def _unicode_escape(t: str, j: int) -> tuple[str, int] | None:
    """Decode ``\\uXXXX`` at ``t[j]`` (joining a surrogate pair); None if the text stops mid-escape."""
    if j + 6 > len(t):
        return None
    try:
        code = int(t[j + 2:j + 6], 16)
    except ValueError:
        return "", j + 6
    if 0xD800 <= code <= 0xDBFF:
        if j + 12 > len(t):
            return None
        if t[j + 6:j + 8] == "\\u":
            try:
                low = int(t[j + 8:j + 12], 16)
            except ValueError:
                low = 0
            if 0xDC00 <= low <= 0xDFFF:
                return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), j + 12
    return chr(code), j + 6


def parse_prefix(text: str) -> tuple[dict[str, Any], set[str]]:
    """Parse the prefix of a JSON object: the values seen so far, and the keys whose value is complete."""
    parser = PrefixParser()
    parser.feed(text)
    return parser.obj, parser.done


Limits = dict[str, int]  # field → maxItems (lists) or maxLength (strings), as the parser will enforce them


def limits_of(schema: dict[str, Any]) -> Limits:
    out: Limits = {}
    for key, spec in schema.get("properties", {}).items():
        if "maxItems" in spec:
            out[key] = spec["maxItems"]
        elif "maxLength" in spec:
            out[key] = spec["maxLength"]
    return out


def _field(value: Any, complete: bool, heading: str | None, limit: int | None) -> tuple[list[str], bool]:
    """The markdown of one field and whether it is complete (rendering stops at an incomplete field)."""
    out: list[str] = []
    if isinstance(value, str):
        text = value.strip()
        if limit is not None:
            text = text[:limit]
        out.append(text)
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


def _render_from(start: int, obj: dict[str, Any], done: set[str], final: bool,
                 limits: Limits, fields: Fields = FIELDS) -> tuple[str, int, int]:
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


class LiveRenderer:
    """Feed raw chunks, get the markdown to append (``fields``: which reply fields to show, in order)."""

    def __init__(self, limits: Limits | None = None, fields: Fields = FIELDS) -> None:
        self.limits = limits or {}
        self.fields = fields
        self._parser = PrefixParser()
        self._frozen = 0  # FIELDS sent in full: never rendered again
        self._frozen_text = ""  # their markdown, the start of what was sent
        self._shown = ""  # what was sent after it
        self._version = -1  # the parser's version at the last render

    @property
    def sent(self) -> str:
        return self._frozen_text + self._shown

    def feed(self, chunk: str) -> str:
        p = self._parser
        p.feed(chunk)
        if p.reassigned:  # a key came twice: an earlier field may change, so render everything as it stands
            return self._extend(render(p.obj, p.done, limits=self.limits, fields=self.fields))
        if p.version == self._version:
            return ""  # nothing that shows changed (say, an unfinished list item, which is held back, grew)
        self._version = p.version
        tail, fields, length = _render_from(self._frozen, p.obj, p.done, False, self.limits, self.fields)
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
