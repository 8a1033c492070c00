"""How much a reply may ask of a model: the whole reply, or what a small model can complete within its token budget.

A provider names its profile (``Provider.reply_profile``; the embedded SmolLM2 says ``small``). :func:`fit` gives the
schema actually asked and the reply's token budget: for ``small``, the optional keys of :data:`LEFT_OUT` go (each
has a default in its reply model), the lists of :data:`AT_LEAST` must be filled, every list of texts is capped
(``maxItems``, never below the ``minItems`` its caller needs) and every string (``maxLength``, with a ``minLength``
so a grammar cannot pass an empty one) — llama.cpp's JSON grammar enforces all of these. A grammar cannot close an
object the token limit cut, so the budget is at least the longest reply the schema allows (:func:`longest_reply`, in
characters: every token of a grammar-bound reply is one character or more, about a quarter of real text's) and the
string caps shrink until that fits the profile's ceiling, or the budget grows. The full profile changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from council.providers.base import GRAMMAR_MAX_ITEM, GRAMMAR_MAX_STRING, inline_refs

#: Reply kind (schema title) → optional keys a small model is not asked for: the ones the council can do without.
LEFT_OUT: dict[str, tuple[str, ...]] = {
    "PersonaReply": ("assumptions", "questions", "changed_position", "continue_debate", "evidence_requests"),
    "SynthesisReply": ("conflicts", "notes"),
}
#: Reply kind → lists a small model must fill (``minItems``), which it would otherwise leave empty: the risks (the
#: Devil's Advocate's counterpoints are its risks), the chair's agreements, and two candidates, which a clarifier's
#: plan needs for its questions to say what hangs on them.
AT_LEAST: dict[str, dict[str, int]] = {
    "PersonaReply": {"risks": 1},
    "SynthesisReply": {"agreements": 1, "risks_tradeoffs": 1},
    "ClarifierReply": {"candidates": 2},
}

# The longest text each JSON value may take under llama.cpp's grammar (llama_grammar.py): one optional space after
# every value, integral and decimal parts of up to 16 digits each.
_SPACE = 1
_INTEGER = len("-") + 16 + _SPACE
_NUMBER = len("-") + 16 + len(".") + 16 + len("e-") + 16 + _SPACE
_LITERAL = {"boolean": len("false") + _SPACE, "null": len("null") + _SPACE}


@dataclass(frozen=True)
class Profile:
    """``max_tokens`` 0: the caller's budget and schema as they are."""

    name: str
    max_tokens: int = 0  # the ceiling of a reply's token budget
    max_items: int = 0  # the most items of any list
    max_string: int = 0  # the longest string (a list's items, and strings inside them: ``max_item``)
    max_item: int = 0
    min_string: int = 0
    left_out: dict[str, tuple[str, ...]] = field(default_factory=dict)
    at_least: dict[str, dict[str, int]] = field(default_factory=dict)


FULL = Profile("full")
SMALL = Profile("small", max_tokens=1200, max_items=2, max_string=160, max_item=100, min_string=2, left_out=LEFT_OUT,
                at_least=AT_LEAST)
PROFILES = {p.name: p for p in (FULL, SMALL)}
MIN_SCALE = 0.25  # string caps shrink in tenths down to this before the budget grows instead


def profile_of(provider: object) -> Profile:
    return PROFILES.get(getattr(provider, "reply_profile", FULL.name), FULL)


def fit(schema: dict[str, Any], profile: Profile, max_tokens: int) -> tuple[dict[str, Any], int]:
    """The schema to ask for under ``profile`` and the reply's token budget (at least :func:`longest_reply`)."""
    if not profile.max_tokens:
        return schema, max_tokens
    asked = inline_refs(schema)
    props = asked.get("properties", {})
    for key in profile.left_out.get(asked.get("title", ""), ()):
        if key in props:
            del props[key]
            asked["required"] = [k for k in asked.get("required", []) if k != key]
    for key, least in profile.at_least.get(asked.get("title", ""), {}).items():
        if key in props:
            props[key]["minItems"] = max(props[key].get("minItems", 0), least)
    scale = 1.0
    while True:
        capped = _capped(asked, profile, scale, in_items=False)
        longest = longest_reply(capped)
        if longest <= profile.max_tokens:
            return capped, profile.max_tokens
        if scale - 0.1 < MIN_SCALE:
            return capped, longest  # the budget grows rather than cut the object
        scale -= 0.1


def _capped(node: dict[str, Any], profile: Profile, scale: float, in_items: bool) -> dict[str, Any]:
    out = dict(node)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _capped(v, profile, scale, in_items) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _capped(out["items"], profile, scale, in_items=True)
    kind = out.get("type")
    if kind == "string" and "enum" not in out:
        cap = max(8, int((profile.max_item if in_items else profile.max_string) * scale))
        low = max(out.get("minLength", 0), profile.min_string)
        out["maxLength"] = max(low, min(out.get("maxLength", cap), cap))
        out["minLength"] = low
    elif kind == "array" and out.get("items", {}).get("type") in ("string", "object"):  # not a list of numbers
        least = out.get("minItems", 0)  # what the caller needs (a review's one answer per checklist item) stays
        out["maxItems"] = max(least, min(out.get("maxItems", profile.max_items), profile.max_items))
    return out


def longest_reply(node: dict[str, Any]) -> int:
    """The most characters a reply under ``node`` may take as llama.cpp's grammar writes it (a string without
    ``maxLength``: the grammar caps of ``providers.base``; a list without ``maxItems``: counted as 10 items)."""
    if "enum" in node:
        return max(len(json.dumps(v, ensure_ascii=False)) for v in node["enum"]) + _SPACE
    kind = node.get("type")
    if kind == "string":
        return 2 + int(node.get("maxLength", GRAMMAR_MAX_STRING)) + _SPACE
    if kind == "integer":
        return _INTEGER
    if kind == "number":
        return _NUMBER
    if kind in _LITERAL:
        return _LITERAL[kind]
    if kind == "array":
        n = int(node.get("maxItems", 10))
        item = longest_reply(node.get("items") or {"type": "string", "maxLength": GRAMMAR_MAX_ITEM})
        return len("[") + _SPACE + n * item + max(0, n - 1) * (len(",") + _SPACE) + len("]") + _SPACE
    props = node.get("properties", {})
    members = [len(json.dumps(k, ensure_ascii=False)) + _SPACE + len(":") + _SPACE + longest_reply(v)
               for k, v in props.items()]
    return len("{") + _SPACE + sum(members) + max(0, len(members) - 1) * (len(",") + _SPACE) + len("}") + _SPACE
