"""The MCP tools: names, titles, annotations, and input/output JSON schemas derived from the wire models.

``TOOLS`` are the consult tools and ``council_review`` (VS Code's agent-mode tools carry the same: ``python -m
tools.lmtools`` writes them into package.json); ``MCP_ONLY`` are offered by ``council mcp`` alone
(``council_decisions``, listed when memory is on). Names use underscores: dots break VS Code, Copilot CLI and
Codex. Every ``$ref`` in the schemas is inlined, since several clients do not resolve references.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel

from council.present import tools as words
from council.protocol import consult
from council.providers.base import inline_refs
from council.review.models import CouncilRequest, ReviewedDecision


@dataclass(frozen=True)
class ToolSpec:
    """One tool. ``writes`` says what it may change: ``archive`` (a completed consult is kept when the server keeps
    decisions or transcripts), ``workspace`` (persona override files, when the server has a workspace) or nothing;
    :func:`offered` turns that into annotations and words true for the server as started."""

    name: str
    title: str
    description: str
    params: type[BaseModel]
    result: type[BaseModel]
    idempotent: bool
    writes: Literal["archive", "workspace"] | None = None
    read_only: bool = True
    destructive: bool = False


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("council_consult", *words.CONSULT, consult.ConsultParams, consult.ConsultResult, idempotent=False,
             writes="archive"),
    ToolSpec("persona_consult", *words.PERSONA_CONSULT, consult.PersonaConsultParams, consult.ConsultResult,
             idempotent=False, writes="archive"),
    ToolSpec("council_define_personas", *words.DEFINE_PERSONAS, consult.DefinePersonasParams,
             consult.DefinePersonasResult, idempotent=True, writes="workspace"),
    ToolSpec("council_review", *words.REVIEW, CouncilRequest, ReviewedDecision, idempotent=False),
)
#: Offered by ``council mcp`` only (not contributed to VS Code), and only when the server can answer them.
MCP_ONLY: tuple[ToolSpec, ...] = (
    ToolSpec("council_decisions", *words.DECISIONS, consult.DecisionsParams, consult.DecisionsResult, idempotent=True),
)
TOOLS_BY_NAME = {t.name: t for t in (*TOOLS, *MCP_ONLY)}


def offered(*, memory: bool, transcripts: bool, workspace: bool, from_roots: bool = False) -> tuple[ToolSpec, ...]:
    """The tools a server lists, as started: with the decision memory on (``memory``) ``council_decisions`` is
    offered, and a consult that keeps its decision or transcript is not read-only (its description says what is
    kept); ``council_define_personas`` writes (and may replace fields of existing override files) only when the
    server has a ``workspace``, else it can only preview drafts. ``from_roots``: the workspace is the client's
    first root (no ``--workspace``), and the tools that use it say so."""
    out = []
    for spec in (*TOOLS, *(MCP_ONLY if memory else ())):
        if spec.writes == "archive" and (memory or transcripts):
            spec = replace(spec, read_only=False, description=f"{spec.description} {words.kept(memory, transcripts)}")
        elif spec.writes == "workspace":
            spec = replace(spec, read_only=False, destructive=True) if workspace else \
                replace(spec, description=f"{spec.description} {words.NO_WORKSPACE}")
        if from_roots:  # overrides change the review's roles too; the memory lives there
            spec = replace(spec, description=f"{spec.description} {words.ROOTS_WORKSPACE}")
        out.append(spec)
    return tuple(out)


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    return inline_refs(spec.params.model_json_schema(mode="validation"))


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    return inline_refs(spec.result.model_json_schema(mode="serialization"))
