"""Reference for the tests: the live renderer as it was before it became incremental (commit 1009927).

It re-parses the whole buffer on every chunk. The only change: ``_list`` raises ``Hang`` where the original
looped forever (a ``}`` where a list item should start), so tests can skip those inputs.

Original docstring: turns a persona's streaming JSON reply into append-only markdown.

Each chunk is appended to the buffer, the buffer is parsed as a *prefix* of a JSON object (unfinished strings
and lists allowed), and the fields are rendered in a fixed order. Only text that extends what was already sent is
emitted; rendering holds back at the first field that is not finished, so the output never has to be retracted.
"""

from __future__ import annotations

import json
from typing import Any

# (field, heading) in render order; None heading = a plain paragraph.
FIELDS: tuple[tuple[str, str | None], ...] = (
    ("position", None),
    ("summary", "Summary"),
    ("advice", "Advice"),
    ("risks", "Risks"),
    ("next_steps", "Next steps"),
)


def parse_prefix(text: str) -> tuple[dict[str, Any], set[str]]:
    """Parse the prefix of a JSON object: the values seen so far, and the keys whose value is complete."""
    start = text.find("{")
    if start == -1:
        return {}, set()
    p = _Prefix(text, start + 1)
    return p.obj, p.done


class _Prefix:
    def __init__(self, text: str, i: int) -> None:
        self.t, self.i, self.obj, self.done = text, i, {}, set()
        try:
            self._members()
        except _End:
            pass

    def _ws(self) -> None:
        while self.i < len(self.t) and self.t[self.i] in " \t\r\n,":
            self.i += 1
        if self.i >= len(self.t):
            raise _End

    def _members(self) -> None:
        while True:
            self._ws()
            if self.t[self.i] == "}":
                return
            key, complete = self._string()
            if not complete:
                return
            self._ws()
            if self.t[self.i] != ":":
                return
            self.i += 1
            self._ws()
            value, complete = self._value()
            self.obj[key] = value
            if not complete:
                return
            self.done.add(key)

    def _value(self) -> tuple[Any, bool]:
        ch = self.t[self.i]
        if ch == '"':
            return self._string()
        if ch == "[":
            return self._list()
        end = self.i
        while end < len(self.t) and self.t[end] not in ",}]":
            end += 1
        raw = self.t[self.i:end].strip()
        if end >= len(self.t):
            return None, False
        self.i = end
        try:
            return json.loads(raw), True
        except json.JSONDecodeError:
            return None, True

    def _list(self) -> tuple[list[Any], bool]:
        self.i += 1
        items: list[Any] = []
        while True:
            try:
                self._ws()
            except _End:
                return items, False
            if self.t[self.i] == "]":
                self.i += 1
                return items, True
            before = self.i
            value, complete = self._value()
            items.append(value)
            if not complete:
                return items, False
            if self.i == before:
                raise Hang

    def _string(self) -> tuple[str, bool]:
        if self.t[self.i] != '"':
            raise _End
        j, out = self.i + 1, []
        while j < len(self.t):
            ch = self.t[j]
            if ch == "\\":
                if j + 1 >= len(self.t):
                    break
                nxt = self.t[j + 1]
                if nxt == "u":
                    decoded = _unicode_escape(self.t, j)
                    if decoded is None:
                        break
                    text, j = decoded
                    out.append(text)
                    continue
                out.append(_ESCAPES.get(nxt, nxt))
                j += 2
                continue
            if ch == '"':
                self.i = j + 1
                return "".join(out), True
            out.append(ch)
            j += 1
        self.i = len(self.t)
        return "".join(out), False


class _End(Exception):
    pass


class Hang(Exception):
    """The original parser would loop forever here."""


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}


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


Limits = dict[str, int]  # field → maxItems (lists) or maxLength (strings), as the parser will enforce them


def limits_of(schema: dict[str, Any]) -> Limits:
    out: Limits = {}
    for key, spec in schema.get("properties", {}).items():
        if "maxItems" in spec:
            out[key] = spec["maxItems"]
        elif "maxLength" in spec:
            out[key] = spec["maxLength"]
    return out


def render(obj: dict[str, Any], done: set[str], *, final: bool = False, limits: Limits | None = None) -> str:
    """Markdown for the fields seen so far, stopping at the first unfinished one.

    Partial strings are shown without trailing whitespace and everything is cut to the schema's limits, so the
    streamed text is always a prefix of the final render.
    """
    limits = limits or {}
    out: list[str] = []
    for key, heading in FIELDS:
        if key not in obj:
            if final:
                continue
            break
        value, complete = obj[key], final or key in done
        if isinstance(value, str):
            text = value.strip()
            if key in limits:
                text = text[: limits[key]]
            out.append(text)
            if complete:
                out.append("\n\n")
        elif isinstance(value, list):
            items = [v for v in value if isinstance(v, str) and v.strip()]
            if key in limits and len(items) > limits[key]:
                items, complete = items[: limits[key]], True
            if items or complete:
                if items:
                    out.append(f"**{heading}**\n")
                ready = items if complete else items[:-1]
                out.extend(f"- {v.strip()}\n" for v in ready)
                if not complete:
                    break
                if items:
                    out.append("\n")
        if not complete:
            break
    return "".join(out)


class LiveRenderer:
    """Feed raw chunks, get the markdown to append."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.buffer = ""
        self.sent = ""
        self.limits = limits or {}

    def feed(self, chunk: str) -> str:
        self.buffer += chunk
        obj, done = parse_prefix(self.buffer)
        return self._extend(render(obj, done, limits=self.limits))

    def finish(self, obj: dict[str, Any]) -> str:
        return self._extend(render(obj, set(obj), final=True, limits=self.limits))

    def _extend(self, text: str) -> str:
        if len(text) > len(self.sent) and text.startswith(self.sent):
            new = text[len(self.sent):]
            self.sent = text
            return new
        return ""
