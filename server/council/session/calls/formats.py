"""How a prompt asks for its JSON reply: a compact key guide derived from the reply schema, never the schema itself.

``format_block(schema)`` lists each key with its type and a one-line hint (``hints.toml``): a few hundred characters
where the full JSON schema took over a thousand, and the same text in every call asking for the same reply, so prefix
caches can reuse it; ``compact=True`` (backends that enforce the schema) drops the JSON types. Every capped text says
its cap in words (``profiles`` caps the texts of every provider, and not every backend enforces a cap). A
PersonaReply's debate keys (the vote, a change of position) go in an ``extra_block`` next to the cycle's
instructions; ``swaps_of`` pairs every block with its compact form (or the form of the schema a profile fitted,
``profiles``) for the call layer.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from council.config import tomllib
from council.providers.base import inline_refs

#: Keys a PersonaReply carries only in debate cycles (a vote, a change of position).
DEBATE_KEYS = ("option_id", "backs", "changed_position", "change_reason")
HEAD = "Reply with one JSON object only, no prose or code fences. Its keys:"
COMPACT_HEAD = "Reply with one JSON object with the keys {keys}, filled with your own content"


@functools.cache
def _hints() -> dict[str, dict[str, str]]:
    """One-line hints per reply kind (schema title) and key, from ``hints.toml`` (read on first use)."""
    return tomllib.loads(Path(__file__).with_name("hints.toml").read_text(encoding="utf-8"))


def _count(spec: dict[str, Any]) -> str:
    lo, hi = spec.get("minItems"), spec.get("maxItems")
    if lo and hi:
        return f"{lo}-{hi}" if lo != hi else f"exactly {lo}"
    if hi:
        return f"up to {hi}"
    return f"at least {lo}" if lo else ""


def words(chars: int) -> int:
    """How many words a text of at most ``chars`` characters holds, told to a model (about 7 characters a word in
    English, space included: a model that keeps to it stays inside the cap, with room for longer words)."""
    return max(3, chars // 7)


def _length(spec: dict[str, Any]) -> str:
    """A string's cap in words ('' when it has none)."""
    return f"at most {words(spec['maxLength'])} words" if spec.get("maxLength") else ""


def bullet_cap(schema: dict[str, Any]) -> int | None:
    """The cap (characters) the reply's lists of texts share, said once for them all (None: none shared)."""
    caps = {spec.get("items", {}).get("maxLength") for spec in schema.get("properties", {}).values()
            if spec.get("type") == "array" and spec.get("items", {}).get("type") == "string"}
    return caps.pop() if len(caps) == 1 and None not in caps else None


def _kind(spec: dict[str, Any], hints: dict[str, str], compact: bool, shared: int | None = None) -> str:
    """What a value is, in a few words (``compact``: no JSON types); a text's cap in words."""
    if "enum" in spec:
        values = [str(v) for v in spec["enum"]]
        if compact:
            return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]
        return " | ".join(json.dumps(v) for v in spec["enum"])
    kind = spec.get("type")
    if kind == "array":
        items = spec.get("items", {})
        count = _count(spec)
        if items.get("type") == "object":
            inner = _keys(items, hints, compact, sep=", ")
            return f"{count} objects {{{inner}}}".strip() if not compact else f"{count} items with {inner}".strip()
        one = spec.get("maxItems") == 1
        noun = ("short bullet" if one else "short bullets") if items.get("type") == "string" else \
            ("number" if one else "numbers")
        each = _length(items) if items.get("type") == "string" and items.get("maxLength") != shared else ""
        return f"{count} {noun}".strip() + (f" of {each}" if each else "")
    if kind in ("number", "integer"):
        if "minimum" in spec and "maximum" in spec:
            span = f"{spec['minimum']}-{spec['maximum']}"
            return span if compact else f"number {span}"
        return "" if compact else "number"
    if kind == "string":
        return _length(spec) if compact else ", ".join(w for w in ("string", _length(spec)) if w)
    if compact:
        return ""
    return {"boolean": "true | false"}.get(kind or "", "value")


def _keys(schema: dict[str, Any], hints: dict[str, str], compact: bool, sep: str,
          only: tuple[str, ...] | None = None, shared: int | None = None) -> str:
    parts = []
    for key, spec in schema.get("properties", {}).items():
        if only is not None and key not in only:
            continue
        words = [w for w in (_kind(spec, hints, compact, shared), hints.get(key, "")) if w]
        if compact:
            parts.append(f"{key} ({', '.join(words)})" if words else key)
        else:
            parts.append(f'"{key}": {", ".join(words)}')
    return sep.join(parts)


def split(schema: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The schema without the keys of later debate cycles, and those keys (a PersonaReply asks for them)."""
    props = schema.get("properties", {})
    extra = tuple(k for k in DEBATE_KEYS if k in props) if schema.get("title") == "PersonaReply" else ()
    if not extra:
        return schema, ()
    base = {**schema, "properties": {k: v for k, v in props.items() if k not in extra}}
    return base, extra


def format_block(schema: dict[str, Any], *, compact: bool = False) -> str:
    """The reply-format instruction for ``schema`` (for a PersonaReply: its stable keys only)."""
    return _format_block(json.dumps(schema), compact)  # keys in order: the order of the guide


@functools.lru_cache(maxsize=256)
def _format_block(schema_json: str, compact: bool) -> str:  # a session asks for the same few schemas again and again
    schema = json.loads(schema_json)
    base, _ = split(inline_refs(schema))
    hints = _hints().get(schema.get("title", ""), {})
    shared = bullet_cap(base)
    each = f"Every bullet at most {words(shared)} words." if shared else ""
    if compact:
        keys = ", ".join(base.get("properties", {}))
        return " ".join(w for w in (COMPACT_HEAD.format(keys=keys) + ": " + _keys(base, hints, True, sep="; ",
                                                                                   shared=shared) + ".", each) if w)
    return HEAD + "\n" + _keys(base, hints, False, sep="\n", shared=shared) + (f"\n{each}" if each else "")


def extra_block(schema: dict[str, Any], *, compact: bool = False) -> str:
    """The debate keys a later cycle adds to a PersonaReply ('' when there are none)."""
    _, extra = split(schema)
    if not extra:
        return ""
    hints = _hints()["PersonaReply"]
    if compact:
        return "Also fill " + _keys(schema, hints, True, sep="; ", only=extra) + "."
    return "Also include in the JSON object:\n" + _keys(schema, hints, False, sep="\n", only=extra)


@functools.lru_cache(maxsize=64)
def swaps_of(schema_json: str, asked_json: str, compact: bool) -> tuple[tuple[str, str], ...]:
    """(block as built for prompts, the block to send instead) for every block a prompt for the schema
    ``schema_json`` may contain: the ``compact`` form, and for the schema a profile fitted (``asked_json``), that
    schema's keys and bounds. Built once per pair (every call of a debate cycle asks the same schema, fitted the same
    way)."""
    schema, asked = json.loads(schema_json), json.loads(asked_json)
    pairs = [(format_block(schema), format_block(asked, compact=compact)),
             (extra_block(schema), extra_block(asked, compact=compact))]
    return tuple(pair for pair in pairs if pair[0])  # no debate keys: no extra block
