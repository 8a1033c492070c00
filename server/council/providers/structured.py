"""JSON-schema helpers for structured output: inline ``$ref``s so every backend's grammar converter takes it.

Pydantic's ``model_json_schema()`` puts nested models under ``$defs`` and points at them with ``$ref``;
llama.cpp's and some hosted converters handle refs poorly, so providers send the inlined form.
"""

from __future__ import annotations

import copy
from typing import Any

MAX_DEPTH = 32


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` with local ``#/$defs/…`` (and ``#/definitions/…``) refs replaced by their targets.

    Recursive schemas are cut at :data:`MAX_DEPTH` levels (the deepest ref becomes ``{}``, i.e. any value).
    Non-local refs are left as they are.
    """
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        for name, target in (schema.get(key) or {}).items():
            defs[f"#/{key}/{name}"] = target

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [walk(item, depth) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in defs:
            if depth >= MAX_DEPTH:
                return {}
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            resolved = walk(copy.deepcopy(defs[ref]), depth + 1)
            if siblings and isinstance(resolved, dict):
                resolved = {**resolved, **walk(siblings, depth)}
            return resolved
        return {k: walk(v, depth) for k, v in node.items()}

    root = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    return walk(root, 0)


#: Longest string a grammar may allow. llama.cpp expands ``maxLength: N`` into N nested optional rules; at 1200
#: the grammar crashed llama-cpp-python 0.3.36 (SIGSEGV) and long bounds make sampling crawl. Short bounds also
#: keep a small model from rambling until its token budget cuts the JSON off.
GRAMMAR_MAX_STRING = 240
GRAMMAR_MAX_ITEM = 160


def grammar_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema for a grammar-constrained backend (llama.cpp, Ollama): refs inlined, string lengths capped (list
    items shorter still). The caller's parser enforces the original bounds afterwards."""

    def strip(node: Any, in_items: bool = False) -> Any:
        if isinstance(node, list):
            return [strip(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {k: (strip(v, in_items=(k == "items")) if isinstance(v, (dict, list)) else v)
               for k, v in node.items()}
        if out.get("type") == "string" and "enum" not in out:
            cap = GRAMMAR_MAX_ITEM if in_items else GRAMMAR_MAX_STRING
            out["maxLength"] = min(out.get("maxLength", cap), cap)
        return out

    return strip(inline_refs(schema))
