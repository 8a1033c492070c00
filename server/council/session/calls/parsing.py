"""Defensive parsing of model output into reply models: find the JSON, validate it, explain what was wrong.

Small models wrap JSON in prose or fences, truncate it or add keys: this extracts the first balanced JSON object,
clamps numbers and trims over-long lists (grammars do not enforce min/max), and validates; a failure is a short,
model-readable explanation for the one repair retry. A raw control character (a line break inside a string, which
llama.cpp's JSON grammar lets a model write and strict JSON refuses) is read as a space. A reply still streaming (or
cut off) is read with pydantic-core's partial JSON mode (``PartialObject``), which does not say whether the object's
last member is finished; ``Members``, the one hand-written piece here, follows the members as the text grows (the
live view needs it: a paragraph ends at its closing quote, a list's last item shows at its ``]``).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_core import from_json

from council.session.state.outputs import ModelReply

T = TypeVar("T", bound=ModelReply)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_LONG_INTEGER = 100  # digits past which a model's integer is read as a float (inf): Python refuses to read one
# of more than 4300 digits (a ValueError, not a JSON error: it failed the session, an internal error), and no reply
# needs one so long


def _integer(text: str) -> int | float:
    return int(text) if len(text) <= _LONG_INTEGER else float(text)


_DECODER = json.JSONDecoder(parse_int=_integer)
_PAIRS = json.JSONDecoder(object_pairs_hook=list)  # an object as the list of its members, in order (keys may repeat)
_STRING_STOP = re.compile(r'["\\]')
_SIGNIFICANT = re.compile(r"[^ \t\r\n]")  # between members: every token counts
_NESTED = re.compile(r'["\[\]{}]')  # inside a member's value: only strings and nesting count
_CONTROL = re.compile(r"[\x00-\x1f]")  # a space between tokens, and the only reading of one inside a string
Parsed = tuple[dict[str, Any], set[str]]  # the values seen so far, and the keys whose value is complete


class Members:
    """Reads a JSON object's text as it grows (each character once) for what the partial parse does not give:
    the key being written (``key``), whether its value is unfinished (``open``: "string", "container",
    "literal" or None), whether the object has closed, and whether a key came twice (``reassigned``)."""

    def __init__(self) -> None:
        self.depth = 0  # 0 before the '{', 1 between members, more inside a member's value
        self.closed = False
        self.key: str | None = None
        self.open: str | None = None
        self.reassigned = False
        self.string = -1  # where the string being read starts, or -1
        self.pos = 0
        self._keys: set[str] = set()
        self._colon = False  # a ':' was read and the value has not started

    def scan(self, text: str) -> None:
        if self.pos == 0 and self._whole(text):
            return
        i, n = self.pos, len(text)
        while i < n and not self.closed:
            if self.string >= 0:
                m = _STRING_STOP.search(text, i)
                if m is None:
                    i = n
                elif text[m.start()] == "\\":
                    if m.start() + 1 == n:  # the escaped character has not come yet
                        i = m.start()
                        break
                    i = m.start() + 2
                else:
                    i = m.end()
                    self._string_ends(text, i)
                continue
            m = (_SIGNIFICANT if self.depth < 2 else _NESTED).search(text, i)
            if m is None:
                i = n
                break
            i = m.end()
            self._token(m.group(), m.start())
        self.pos = i

    def _whole(self, text: str) -> bool:
        """Read ``text`` at once when it starts with a whole JSON object (a reply that came in one piece, or one a
        stream held back): the C decoder finds its end and its members, in order, and the state is what the
        token-by-token reading reaches at that end. False (nothing read) when it does not."""
        if not text.startswith("{"):
            return False
        try:
            pairs, end = _PAIRS.raw_decode(text)
        except (ValueError, RecursionError):  # not whole (or nested past the decoder's depth): token by token
            return False
        keys = [key for key, _ in pairs]
        self._keys = set(keys)
        self.reassigned = len(self._keys) < len(keys)
        self.key = keys[-1] if keys else None
        self.closed, self.pos = True, end
        return True

    def _token(self, ch: str, at: int) -> None:
        if ch == '"':
            self.string = at
            if self.depth == 1 and self._colon:
                self.open, self._colon = "string", False
        elif ch in "[{":
            self.depth += 1
            if self.depth == 2 and self._colon:
                self.open, self._colon = "container", False
        elif ch in "]}":
            self.depth -= 1
            if self.depth <= 1:
                self.open = None
                self.closed = self.depth <= 0
        elif self.depth == 1:
            if ch == ":":
                self._colon = True
            elif ch == ",":
                self.open = None  # a literal ends
            elif self._colon:
                self.open, self._colon = "literal", False

    def _string_ends(self, text: str, end: int) -> None:
        start, self.string = self.string, -1
        if self.depth != 1:
            return
        if self.open == "string":
            self.open = None
            return
        key = text[start + 1:end - 1]
        if "\\" in key:  # without an escape the key is its text
            try:
                key = json.loads(text[start:end])
            except ValueError:  # a bad escape: the partial parse stops there anyway
                pass
        self.reassigned = self.reassigned or key in self._keys
        self._keys.add(key)
        self.key, self.open = key, None


def _parsable(text: str) -> bool:
    try:
        from_json(text, allow_partial="trailing-strings")
    except ValueError:
        return False
    return True


class PartialObject:
    """The prefix of a JSON object, chunk by chunk: ``feed`` text, ``parse()`` for the values seen so far and the
    keys whose value is complete. Text before the first ``{`` is skipped. An unfinished string or list is there as
    far as it goes, an unfinished literal as None. ``reassigned``: a key came twice (its earlier value replaced).
    Text that cannot continue a JSON object ends parsing for good; what was read up to there stays."""

    def __init__(self) -> None:
        self.text = ""  # from the '{' on
        self.members = Members()
        self._stopped: Parsed | None = None  # the result for good, once the text stopped being a JSON prefix

    @property
    def reassigned(self) -> bool:
        return self.members.reassigned

    def feed(self, chunk: str) -> None:
        if self._stopped is not None or not chunk:
            return
        chunk = _CONTROL.sub(" ", chunk)
        if not self.text:
            start = chunk.find("{")
            if start == -1:
                return
            chunk = chunk[start:]
        self.text += chunk
        self.members.scan(self.text)

    def parse(self) -> Parsed:
        if self._stopped is not None:
            return self._stopped
        if not self.text:
            return {}, set()
        try:
            obj = from_json(self.text, allow_partial="trailing-strings")
        except ValueError:
            return self._stop()
        done = set(obj)
        m = self.members
        if m.open is not None and m.key is not None:
            done.discard(m.key)
            if m.open == "literal":
                obj[m.key] = None
        return obj, done

    def _stop(self) -> Parsed:
        """The text cannot continue an object: parse the longest prefix that can, for good."""
        lo, hi = 1, len(self.text)  # text[:lo] ('{') parses, text[:hi] does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if _parsable(self.text[:mid]) else (lo, mid)
        kept = PartialObject()
        kept.feed(self.text[:lo])
        self._stopped = kept.parse()
        self.members = kept.members
        return self._stopped


def parse_prefix(text: str) -> Parsed:
    """Parse the prefix of a JSON object: the values seen so far, and the keys whose value is complete."""
    prefix = PartialObject()
    prefix.feed(text)
    return prefix.parse()


class ParseFailure(Exception):
    """The text did not contain a valid reply; ``reason`` is fed back to the model for one repair."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def extract_json_object(text: str) -> dict[str, Any]:
    """The first balanced JSON object in ``text`` (fences and surrounding prose ignored)."""
    text = _CONTROL.sub(" ", text)
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        start = chunk.find("{")
        while start != -1:
            try:  # a valid object starts here (raw_decode at a '{' gives a dict or fails)
                return _DECODER.raw_decode(chunk, start)[0]
            except (ValueError, RecursionError):  # malformed, or nested past the decoder's depth (a model looping
                pass  # on "[[[[": it failed the session as an internal error)
            if _balanced_end(chunk, start) is None:  # cut off: no later '{' is tried
                break
            start = chunk.find("{", start + 1)  # malformed here: one nested in it may be whole
    if "{" in text:
        raise ParseFailure("the JSON object was incomplete or malformed (truncated or unbalanced braces)")
    raise ParseFailure("the reply contained no JSON object")


def _balanced_end(text: str, start: int) -> int | None:
    depth, in_str, escape = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: cut at a word boundary with an ellipsis when longer (a model that was
    told the cap in words, not held to it, may overrun it a little)."""
    if len(text) <= limit:
        return text
    cut = text[: max(1, limit - 1)]
    head = cut.rsplit(" ", 1)[0] if " " in cut.strip() else cut
    return head.rstrip(" ,;:") + "…"


def share_of(value: float) -> float:
    """A number asked for as a share (0 to 1: a vote's or a verdict's confidence) as the model meant it: a model
    that writes 67 means 67 % (0.67) — clamped, it was certainty (1.0), the most weight a vote can carry. 0-1 as
    written; above 10 up to 100 a percentage; anything else clamped (up to 10 a model may have overshot 1 or scored
    out of ten — 10 is ten of ten, next to a review's axis scores out of ten, not the 10 % that made the surest
    vote the weakest: no reading is sure, so it stays the clamp it was); NaN (which Python's JSON reads) the neutral
    0.5."""
    if value != value:
        return 0.5
    return value / 100 if 10 < value <= 100 else min(1.0, max(0.0, value))


def _number_in(text: str, share: bool) -> float | None:
    """The number a model wrote as a string where a number was asked (``"30"``, ``" 0.7 "``, ``"NaN"``; a share
    also as a percentage, ``"67%"``), or None when it is no number (``"high"``: one repair asks for one)."""
    said = text.strip()
    percent = share and said.endswith("%")
    try:
        number = float(said[:-1] if percent else said)
    except ValueError:
        return None
    return min(1.0, max(0.0, number / 100)) if percent else number  # "1000%" is all of it, not a 10 read as 10 %


def _fit_to_schema(data: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Clamp numbers to min/max (a share written as a percentage read as one: :func:`share_of`; a number written as a
    string read as that number; NaN, which Python's JSON reads, the middle of the bounds), trim lists to maxItems and
    strings to maxLength, drop empty list items (``null`` for a list is an empty one; for a text or a number, none
    written; a number for a text, its digits: ``"option_id": 2`` names the second option as ``"2"`` does; one of
    an enum's values in another case, that value)."""
    props = schema.get("properties", {})
    out = dict(data)
    for key, spec in props.items():
        if key not in out:
            continue
        value = out[key]
        kind = spec.get("type")
        share = kind == "number" and spec.get("minimum") == 0 and spec.get("maximum") == 1
        if kind == "number" and isinstance(value, str) and (number := _number_in(value, share)) is not None:
            value = number
        elif kind == "array" and value is None:
            value = []
        elif kind in ("string", "number") and value is None:  # none written: the reply model's default, or "required"
            del out[key]
            continue
        elif kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = out[key] = str(int(value) if isinstance(value, int) or value.is_integer() else value)  # "2"
        elif kind == "string" and isinstance(value, str) and value not in spec.get("enum", [value]):
            same = [e for e in spec["enum"] if isinstance(e, str) and e.casefold() == value.strip().casefold()]
            value = out[key] = same[0] if len(same) == 1 else value  # "High" is "high", "approve" "APPROVE"
        if kind == "array" and isinstance(value, list):
            items = [v.strip() if isinstance(v, str) else v for v in value]
            items = [v for v in items if v not in ("", None)]
            if "maxItems" in spec:
                items = items[: spec["maxItems"]]
            out[key] = items
        elif kind == "string" and isinstance(value, str) and "maxLength" in spec:
            out[key] = _clip(value.strip(), spec["maxLength"])
        elif kind in ("number", "integer") and isinstance(value, (int, float)) and not isinstance(value, bool):
            if share:
                value = share_of(value)
            elif value != value and "minimum" in spec and "maximum" in spec:  # NaN: no reading; the neutral middle
                value = (spec["minimum"] + spec["maximum"]) / 2
            if "maximum" in spec:
                value = min(value, spec["maximum"])
            if "minimum" in spec:
                value = max(value, spec["minimum"])
            out[key] = value
    return out


def salvage_truncated(text: str) -> dict[str, Any] | None:
    """The complete members of a JSON object cut off mid-way (a token budget ran out), or None.

    A list that was being written keeps its finished items; a half-written string or number is dropped.
    """
    obj, done = parse_prefix(text)
    if not obj:
        return None
    out = {k: v for k, v in obj.items() if k in done}
    for key, value in obj.items():
        if key not in done and isinstance(value, list) and len(value) > 1:
            out[key] = value[:-1]
    return out or None


def readable_parts(text: str) -> dict[str, Any]:
    """What can be read of a reply that stayed unusable: its JSON object, or the complete members of one cut off."""
    try:
        return extract_json_object(text)
    except ParseFailure:
        return salvage_truncated(text) or {}


def parse_reply(text: str, model: type[T], schema: dict[str, Any], *, salvage: bool = False) -> T:
    """Parse ``text`` into ``model`` under ``schema`` (the bounds actually requested), or raise ParseFailure.

    With ``salvage``, a reply cut off mid-object keeps its complete members (and fails only if what is left does
    not validate)."""
    try:
        raw = extract_json_object(text)
    except ParseFailure:
        raw = salvage_truncated(text) if salvage else None
        if raw is None:
            raise
    data = _fit_to_schema(raw, schema)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False)[:6]:
            where = ".".join(str(p) for p in err["loc"]) or "(root)"
            problems.append(f"{where}: {err['msg']}")
        raise ParseFailure("the JSON did not match the schema: " + "; ".join(problems)) from exc
