"""Evidence-based deliberation and precedents, as the engine runs them (the tools and the memory are injected).

After a cycle, the evidence its replies asked for is gathered before the next cycle (or the chair): identical
requests once, none answered earlier again, at most :data:`MAX_PER_CYCLE` (the rest refused as ``limit``), all in
one ``evidence_gathered`` record that the next prompts read and a restore replays.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import anyio

from council.session.state import records as r
from council.session.state.grounds import EVIDENCE_TOOLS, EvidenceResult, EvidenceUse, Precedent
from council.session.state.runtime import Turn
from council.session.steps.persona_reply import EVIDENCE_PER_REPLY

log = logging.getLogger(__name__)

MAX_PER_CYCLE = 6  # evidence requests served after one cycle


class EvidenceTools(Protocol):
    """Read-only tools on the workspace root (``council.evidence.WorkspaceTools``)."""

    async def overview(self) -> list[str]:
        """The workspace's top-level entries the advisors may start from (folders end with ``/``)."""

    async def run(self, tool: str, query: str, regex: bool) -> EvidenceResult:
        """Run one tool; never raises for a refused or failed request (the result says why)."""


class DecisionMemory(Protocol):
    """Past decisions of the workspace's council (``council.memory.MemoryStore``)."""

    async def recall(self, text: str) -> tuple[list[Precedent], str]:
        """Decisions whose questions are like ``text``, most similar first, and the ranking method used."""


@dataclass(frozen=True)
class Attachment:
    """A file (or selection, or snippet) the user attached to the turn that started the session."""

    name: str
    content: str
    uri: str | None = None


@dataclass
class _Request:
    tool: str
    query: str
    regex: bool
    personas: list[str]


def requests_of(rt: Turn, cycle: int) -> list[_Request]:
    """The cycle's evidence requests, in council order, each once (with every persona that asked for it)."""
    s = rt.session
    merged: dict[tuple[str, str, bool], _Request] = {}
    for resp in (x for x in s.responses if x.cycle == cycle and not x.abstained):
        for req in resp.evidence_requests[:EVIDENCE_PER_REPLY]:
            query = " ".join(req.query.split())
            if not query:
                continue
            key = (req.tool.strip().lower(), query, req.regex and req.tool.strip().lower() == "search_code")
            if key in merged:
                merged[key].personas.append(resp.persona)
            else:
                merged[key] = _Request(key[0], query, key[2], [resp.persona])
    return list(merged.values())


async def gather_evidence(rt: Turn, cycle: int, tools: EvidenceTools | None) -> None:
    """Serve the evidence requests of ``cycle``'s replies once (nothing when the session has no evidence tools,
    the cycle's requests were served, or there were none)."""
    s = rt.session
    if not s.settings.evidence or cycle < 1 or cycle in s.evidence_rounds:
        return
    answered = {(u.tool, u.query, u.regex) for u in s.evidence if u.ok}
    wanted = [q for q in requests_of(rt, cycle) if (q.tool, q.query, q.regex) not in answered]
    if not wanted:
        if any(x.evidence_requests for x in s.responses if x.cycle == cycle):
            rt.record(r.EvidenceGathered(at=rt.clock(), cycle=cycle, uses=[]))  # all answered before
        return
    rt.note("evidence", count=min(len(wanted), MAX_PER_CYCLE))
    results: list[EvidenceResult | None] = [None] * len(wanted)

    async def one(i: int, q: _Request) -> None:
        results[i] = await _run(tools, q)

    async with anyio.create_task_group() as tg:
        for i, q in enumerate(wanted[:MAX_PER_CYCLE]):
            tg.start_soon(one, i, q)
    first = len(s.evidence) + 1
    uses = [EvidenceUse(use_id=f"E{first + i}", cycle=cycle, requested_by=q.personas, query=q.query, regex=q.regex,
                        tool=q.tool if q.tool in EVIDENCE_TOOLS else "unknown",  # its use a refusal that names it
                        **(res or EvidenceResult(ok=False, refusal="limit")).model_dump())
            for i, (q, res) in enumerate(zip(wanted, results, strict=True))]
    rt.record(r.EvidenceGathered(at=rt.clock(), cycle=cycle, uses=uses))


async def _run(tools: EvidenceTools | None, q: _Request) -> EvidenceResult:
    if q.tool not in EVIDENCE_TOOLS:
        return EvidenceResult(ok=False, refusal="unknown_tool", detail=q.tool[:300])
    if tools is None:
        return EvidenceResult(ok=False, refusal="no_workspace")
    try:
        return await tools.run(q.tool, q.query, q.regex)
    except Exception as exc:  # a bug in a tool must not sink the session: the advisors read that it failed
        log.exception("evidence tool %s failed", q.tool)
        return EvidenceResult(ok=False, refusal="error", detail=f"{type(exc).__name__}"[:300])


def record_attachments(rt: Turn, attachments: Sequence[Attachment]) -> None:
    """The user's attachments as evidence of cycle 0 (what they are, not their content: the prompts carry that)."""
    if not attachments:
        return
    first = len(rt.session.evidence) + 1
    uses = [EvidenceUse(use_id=f"E{first + i}", cycle=0, requested_by=[rt.session.user.name], tool="attachment",
                        query=a.name, ok=bool(a.content), refusal=None if a.content else "unreadable",
                        size=len(a.content.encode("utf-8")), count=a.content.count("\n") + 1 if a.content else 0,
                        uris=[a.uri] if a.uri else [])
            for i, a in enumerate(attachments)]
    rt.record(r.EvidenceGathered(at=rt.clock(), cycle=0, uses=uses))


async def recall_precedents(rt: Turn, memory: DecisionMemory | None) -> None:
    """Offer similar past decisions to the council (nothing without a memory, or when none is similar)."""
    if memory is None:
        return
    try:
        found, method = await memory.recall(rt.session.request_text)
    except Exception:  # an unreadable memory must not stop the council: it decides without precedents
        log.exception("the decision memory could not be read")
        return
    if found:
        rt.record(r.PrecedentsRecalled(at=rt.clock(), precedents=found, method=method))
