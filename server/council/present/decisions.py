"""The decision memory as people read it: a list of past decisions (``council decisions list|search``, the MCP tool),
one decision in full (``show``), and why a memory file cannot be used."""

from __future__ import annotations

from council.memory.models import Decision
from council.memory.store import MemoryRefused
from council.present.text import bullets, one_line, percent, section

EMPTY = "_No decisions are kept yet: with memory on, every completed council session adds one._\n"
NONE_FOUND = "_No kept decision matches._\n"


def line(d: Decision, similarity: float | None = None) -> str:
    votes = f", {d.tally_text}" if d.tally else ""
    like = f" · {percent(similarity)} similar" if similarity is not None else ""
    return (f"- `{d.decision_id[:8]}` {d.decided_at:%Y-%m-%d} · _{one_line(d.question)[:160]}_ → "
            f"**{one_line(d.outcome)[:160]}** ({d.consensus}{votes}){like}\n")


def full(d: Decision) -> str:
    """One decision with everything the memory keeps."""
    out = [f"## {one_line(d.question)[:200]}\n\n",
           f"_Decided {d.decided_at:%Y-%m-%d %H:%M} UTC · id `{d.decision_id}` · council: "
           f"{', '.join(d.personas) or 'unknown'}_\n\n",
           f"**Outcome:** {one_line(d.outcome)} ({d.consensus}"
           + (f", {d.tally_text}" if d.tally else "") + ")\n\n"]
    if d.recommendation and one_line(d.recommendation) != one_line(d.outcome):
        out.append(f"{one_line(d.recommendation)}\n\n")
    if d.options:
        winner = d.winner or ""
        out.append("### Options\n\n" + bullets(
            f"{o.id} · {o.label}" + (" ✓" if o.id == winner else "") + (f" — {o.description}" if o.description
                                                                        else "") for o in d.options) + "\n")
    out += [section("Key arguments", d.arguments), section("Assumptions", d.assumptions),
            section("Dissent", d.dissent)]
    return "".join(out)


def listing(decisions: list[Decision], similarity: list[float] | None = None, *, full_view: bool = False,
            searched: bool = False) -> str:
    if not decisions:
        return NONE_FOUND if searched or similarity is not None else EMPTY
    if full_view and len(decisions) == 1:
        return full(decisions[0])
    scores: list[float | None] = list(similarity) if similarity is not None else [None] * len(decisions)
    return "".join(line(d, s) for d, s in zip(decisions, scores, strict=True))


def forgotten(d: Decision | None, asked: str) -> str:
    if d is None:
        return f"_No kept decision has the id `{one_line(asked)[:100]}` (or the prefix names several)._\n"
    return f"Forgot the decision `{d.decision_id}` (_{one_line(d.question)[:160]}_).\n"


def refused(err: MemoryRefused) -> str:
    """Why the memory file cannot be used and what to do (one line, plain text)."""
    if err.reason == "outside_workspace":
        return (f"the decision memory {err.path} leads outside the workspace (to {err.detail}); it must stay inside: "
                f"replace the .council link with a folder")
    return (f"{err.path} is not a decision memory ({err.detail}): move it away (mv {err.path} {err.path}.bak) and "
            f"the council starts a new one")
