"""inline_refs: pydantic-style $defs/$ref schemas become ref-free."""

from __future__ import annotations

from pydantic import BaseModel

from council.providers.base import MAX_DEPTH, inline_refs


class Option(BaseModel):
    label: str
    score: int


class Ballot(BaseModel):
    best: Option
    others: list[Option]
    definitions: str  # a field literally called "definitions" must survive


class Tree(BaseModel):
    name: str
    children: list[Tree] = []


def _has_ref(node) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_ref(v) for v in node)
    return False


def test_inlines_nested_models():
    schema = Ballot.model_json_schema()
    assert "$defs" in schema
    out = inline_refs(schema)
    assert not _has_ref(out) and "$defs" not in out
    assert out["properties"]["best"]["properties"]["score"]["type"] == "integer"
    assert out["properties"]["others"]["items"]["required"] == ["label", "score"]
    assert out["properties"]["definitions"]["type"] == "string"
    assert "$defs" in schema  # the input is not mutated


def test_recursive_schema_is_cut():
    out = inline_refs(Tree.model_json_schema())
    depth, node = 0, out
    while node.get("properties", {}).get("children", {}).get("items"):
        node, depth = node["properties"]["children"]["items"], depth + 1
    assert not _has_ref(out) and MAX_DEPTH - 1 <= depth <= MAX_DEPTH


def test_sibling_keywords_and_foreign_refs_kept():
    schema = {
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "the a"},
            "b": {"$ref": "https://example.com/s.json"},
        },
        "$defs": {"A": {"type": "string"}},
    }
    out = inline_refs(schema)
    assert out["properties"]["a"] == {"type": "string", "description": "the a"}
    assert out["properties"]["b"] == {"$ref": "https://example.com/s.json"}
