"""Defensive parsing of model output into reply models: find the JSON, validate it, explain what was wrong.

Small models wrap JSON in prose or code fences, truncate it, or add keys; this module extracts the first balanced
JSON object, clamps numbers and trims over-long lists (grammars do not enforce min/max), and validates. A failure
returns a short, model-readable explanation used for the single repair retry.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import ValidationError

from council.session.outputs import ModelReply

T = TypeVar("T", bound=ModelReply)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


class ParseFailure(Exception):
    """The text did not contain a valid reply; ``reason`` is fed back to the model for one repair."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def extract_json_object(text: str) -> dict[str, Any]:
    """The first balanced JSON object in ``text`` (fences and surrounding prose ignored)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        start = chunk.find("{")
        while start != -1:
            try:  # the usual case, at C speed: a valid object starts here (the scan below finds the same one)
                value, _ = _DECODER.raw_decode(chunk, start)
                if isinstance(value, dict):
                    return value
            except json.JSONDecodeError:
                pass
            end = _balanced_end(chunk, start)
            if end is None:
                break
            try:
                value = json.loads(chunk[start : end + 1])
            except json.JSONDecodeError:
                start = chunk.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = chunk.find("{", end + 1)
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


def _fit_to_schema(data: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Clamp numbers to min/max, trim lists to maxItems and strings to maxLength, drop empty list items."""
    props = schema.get("properties", {})
    out = dict(data)
    for key, spec in props.items():
        if key not in out:
            continue
        value = out[key]
        kind = spec.get("type")
        if kind == "array" and isinstance(value, list):
            items = [v.strip() if isinstance(v, str) else v for v in value]
            items = [v for v in items if v not in ("", None)]
            if "maxItems" in spec:
                items = items[: spec["maxItems"]]
            out[key] = items
        elif kind == "string" and isinstance(value, str) and "maxLength" in spec:
            out[key] = value.strip()[: spec["maxLength"]]
        elif kind in ("number", "integer") and isinstance(value, (int, float)) and not isinstance(value, bool):
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
    from council.session.live_render import parse_prefix  # the same tolerant prefix parser the live view uses

    obj, done = parse_prefix(text)
    if not obj:
        return None
    out = {k: v for k, v in obj.items() if k in done}
    for key, value in obj.items():
        if key not in done and isinstance(value, list) and len(value) > 1:
            out[key] = value[:-1]
    return out or None


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
