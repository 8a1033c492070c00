"""The three MCP tools: names, titles, annotations, and input/output JSON schemas derived from the wire models.

Names use underscores (``council_consult``): dots break VS Code, Copilot CLI and Codex. Schemas are the pydantic
models of ``council.protocol.consult`` with every ``$ref`` inlined, since several clients do not resolve
references. ``python -m council.mcpserver.tools`` prints them as JSON (what the VS Code extension's
``languageModelTools`` contribution must carry; a test compares the two).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from council.present import tools as words
from council.protocol.consult import (
    ConsultParams,
    ConsultResult,
    DefinePersonasParams,
    DefinePersonasResult,
    PersonaConsultParams,
)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    params: type[BaseModel]
    result: type[BaseModel]
    read_only: bool
    idempotent: bool


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("council_consult", *words.CONSULT, ConsultParams, ConsultResult, read_only=True, idempotent=False),
    ToolSpec("persona_consult", *words.PERSONA_CONSULT, PersonaConsultParams, ConsultResult, read_only=True,
             idempotent=False),
    ToolSpec("council_define_personas", *words.DEFINE_PERSONAS, DefinePersonasParams, DefinePersonasResult,
             read_only=False, idempotent=True),
)
TOOLS_BY_NAME = {t.name: t for t in TOOLS}


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``#/$defs/…`` reference replaced by its definition (no ``$defs`` left)."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = walk(defs[node["$ref"].rsplit("/", 1)[-1]])
                rest = {k: walk(v) for k, v in node.items() if k != "$ref"}
                return {**target, **rest}
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    return inline_refs(spec.params.model_json_schema(mode="validation"))


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    return inline_refs(spec.result.model_json_schema(mode="serialization"))


def main() -> int:
    out = [{"name": t.name, "title": t.title, "description": t.description, "inputSchema": input_schema(t)}
           for t in TOOLS]
    sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
