"""A reply budget for every provider: what a session's reply may ask of a model, and the token budget that fits it.

One rule, two profiles. A provider names its profile (``Provider.reply_profile``; the embedded SmolLM2 says
``small``, every other provider gets ``full``). :func:`fitted` gives the schema actually asked and the reply's token
budget: every string is capped (``maxLength``: a list's items at ``max_item`` characters, a text a person reads as
the answer — the chair's recommendation — at ``max_prose``, any other at ``max_string``), with a ``minLength`` so a
grammar cannot pass an empty one; every list at most ``max_items`` (never below the ``minItems`` its caller needs:
a depth's bullets), and the token budget is what the longest capped reply needs (:func:`longest_reply`, in
characters, over the profile's characters per token), never above the caller's. Grammar backends (llama.cpp,
Ollama) enforce the caps; the prompt states them in words for every backend (``formats``), so a model that is not
held to them keeps to them too, and one that is finishes its sentences inside them.

``small`` is the tightest case: its optional keys of :data:`LEFT_OUT` go (each has a default in its reply model),
the lists of :data:`AT_LEAST` must be filled, the list counts of every kind are capped, and, since a grammar cannot
close an object the token limit cut and every token of a grammar-bound reply is one character or more, its budget is
at least the longest reply in characters: the string caps shrink until that fits its ceiling, or the budget grows.
``full`` applies to the session's own calls (:data:`SESSION_KINDS`); a follow-up answer and a review's replies are
asked as their callers built them.
"""

from __future__ import annotations

import functools
import json
import math
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


#: The session's own reply kinds, which every profile caps (a small model's profile caps every kind).
SESSION_KINDS = frozenset({"PersonaReply", "SynthesisReply", "ClarifierReply", "OptionsReply"})
PROSE_FROM = 1000  # a string its reply model allows this long or longer is prose a person reads (``max_prose``)


@dataclass(frozen=True, eq=False)  # one profile is one object (hashed by identity: a key of :func:`fitted`)
class Profile:
    """The caps of one profile (0: the caller's count or length stands)."""

    name: str
    max_tokens: int = 0  # the ceiling of a reply's token budget (0: the caller's budget)
    max_items: int = 0  # the most items of any list (never below the ``minItems`` its caller needs)
    max_string: int = 0  # the longest string (a list's items, and strings inside them: ``max_item``)
    max_item: int = 0
    max_prose: int = 0  # the longest answer text (a string allowed PROSE_FROM characters or more); 0: max_string
    min_string: int = 0
    chars_per_token: float = 1.0  # at least this many characters per token of a reply (the budget's divisor)
    kinds: frozenset[str] | None = None  # the reply kinds it caps (None: every kind)
    count_kinds: frozenset[str] | None = None  # the kinds whose list counts ``max_items`` caps (None: every kind)
    count_objects: bool = True  # lists of objects too (``full``: bullets only; a persona's evidence requests stay)
    left_out: dict[str, tuple[str, ...]] = field(default_factory=dict)
    at_least: dict[str, dict[str, int]] = field(default_factory=dict)


#: Every provider but the embedded model. A text is as long as the chat shows it (a position: 160 characters,
#: ``present.persona.POSITION_CHARS``; a bullet 80, about 11 words), the answer's recommendation 900; a persona's
#: lists of bullets at most 3, or the depth's least count where it requires more (standard: 5 of summary, advice
#: and next steps) — the digest, the options call and the chair read a persona's position, its first two points of
#: advice and its first two risks. A persona's evidence requests, and the chair's, the clarifier's and the options
#: call's lists keep the counts their callers ask (the answer's sections, the plan's candidates, the options on the
#: table). Real text runs 3-4 characters a token (English; fewer in Russian), so 2.5 leaves room.
FULL = Profile("full", max_items=3, max_string=160, max_item=80, max_prose=900, min_string=2, chars_per_token=2.5,
               kinds=SESSION_KINDS, count_kinds=frozenset({"PersonaReply"}), count_objects=False)
SMALL = Profile("small", max_tokens=1200, max_items=2, max_string=160, max_item=80, min_string=2, left_out=LEFT_OUT,
                at_least=AT_LEAST)
PROFILES = {p.name: p for p in (FULL, SMALL)}
MIN_SCALE = 0.25  # string caps shrink in tenths down to this before the budget grows instead


def profile_of(provider: object) -> Profile:
    return PROFILES.get(getattr(provider, "reply_profile", FULL.name), FULL)


@functools.lru_cache(maxsize=64)
def fitted(schema_json: str, profile: Profile, max_tokens: int) -> tuple[str | None, int]:
    """The schema to ask for under ``profile``, as JSON text (None: the profile leaves its kind as it is, and the
    schema ``schema_json`` writes is asked as it was given), and the reply's token budget (``small``: at least
    :func:`longest_reply`; ``full``: what the longest capped reply needs, at most ``max_tokens``). Fitted once per
    schema, profile and budget: a debate cycle asks six personas the same schema, and a session asks the same few
    schemas again and again; a caller that changes the fitted schema parses its own copy of the text."""
    schema = json.loads(schema_json)
    if profile.kinds is not None and schema.get("title") not in profile.kinds:
        return None, max_tokens
    asked = inline_refs(schema)
    props = asked.get("properties", {})
    for key in profile.left_out.get(asked.get("title", ""), ()):
        if key in props:
            del props[key]
            asked["required"] = [k for k in asked.get("required", []) if k != key]
    for key, least in profile.at_least.get(asked.get("title", ""), {}).items():
        if key in props:
            props[key]["minItems"] = max(props[key].get("minItems", 0), least)
    counts = profile.count_kinds is None or asked.get("title") in profile.count_kinds
    if not profile.max_tokens:  # no ceiling to squeeze into: the caps as they are, the budget they need
        capped = _capped(asked, profile, 1.0, in_items=False, counts=counts)
        return json.dumps(capped), min(max_tokens, tokens_for(capped, profile))
    scale = 1.0
    while True:
        capped = _capped(asked, profile, scale, in_items=False, counts=counts)
        longest = longest_reply(capped)
        if longest <= profile.max_tokens:
            return json.dumps(capped), profile.max_tokens
        if scale - 0.1 < MIN_SCALE:
            return json.dumps(capped), longest  # the budget grows rather than cut the object
        scale -= 0.1


def _capped(node: dict[str, Any], profile: Profile, scale: float, in_items: bool, counts: bool) -> dict[str, Any]:
    out = dict(node)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _capped(v, profile, scale, in_items, counts) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _capped(out["items"], profile, scale, in_items=True, counts=counts)
    kind = out.get("type")
    if kind == "string" and "enum" not in out:
        prose = not in_items and out.get("maxLength", 0) >= PROSE_FROM and profile.max_prose
        cap = max(8, int((profile.max_item if in_items else profile.max_prose if prose else profile.max_string)
                         * scale))
        low = max(out.get("minLength", 0), profile.min_string)
        out["maxLength"] = max(low, min(out.get("maxLength", cap), cap))
        if low:
            out["minLength"] = low
    elif (kind == "array" and counts and profile.max_items
          and out.get("items", {}).get("type") in (("string", "object") if profile.count_objects else ("string",))):
        least = out.get("minItems", 0)  # what the caller needs (a review's one answer per checklist item) stays
        out["maxItems"] = max(least, min(out.get("maxItems", profile.max_items), profile.max_items))
    return out


def tokens_for(schema: dict[str, Any], profile: Profile) -> int:
    """The token budget the longest reply under ``schema`` needs at ``profile.chars_per_token``."""
    return math.ceil(longest_reply(schema) / profile.chars_per_token)


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
