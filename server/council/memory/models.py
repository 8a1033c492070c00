"""A decision as the memory keeps it, and how a completed session becomes one.

Snake_case (a ``SnakeModel``) like the consult tools' payloads: the MCP tool and ``council decisions --json`` return
it as is. Every field comes from the session's own records — the vote, the synthesis, the assumption log — never
from a model call made for the memory.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from council.camel import SnakeModel
from council.encodable import encodable
from council.session.state.entities import ConversationSession
from council.session.state.grounds import Precedent

TEXT = 600  # characters kept of one argument, dissent or assumption
ITEMS = 8  # of each list


def _clip(text: str, limit: int = TEXT) -> str:
    text = encodable(" ".join(text.split()))  # SQLite and JSON refuse lone surrogates
    return text if len(text) <= limit else text[: limit - 1] + "…"


class DecisionOption(SnakeModel):
    id: str
    label: str
    description: str = ""


class Decision(SnakeModel):
    """One past decision of the workspace's council."""

    decision_id: str = Field(description="The session id it was decided in.")
    decided_at: datetime
    question: str
    options: list[DecisionOption] = []
    outcome: str = Field(description="The winning option's label, or the council's recommendation without one.")
    winner: str | None = Field(None, description="The winning option's id (none on a tie or without a vote).")
    consensus: str = Field("none", description="unanimous, majority, tie or none.")
    tally: dict[str, int] = Field(default_factory=dict, description="Final-round votes per option id.")
    recommendation: str = ""
    arguments: list[str] = Field(default_factory=list, description="Each voter's final argument, winners first.")
    assumptions: list[str] = []
    dissent: list[str] = []
    personas: list[str] = []

    @property
    def tally_text(self) -> str:
        return " · ".join(f"{k} {n}" for k, n in self.tally.items())

    def precedent(self, similarity: float) -> Precedent:
        return Precedent(decision_id=self.decision_id, decided_at=self.decided_at, question=self.question,
                         outcome=self.outcome, consensus=self.consensus, tally=self.tally_text,
                         arguments=self.arguments[:2], dissent=self.dissent[:1],
                         similarity=round(max(0.0, min(1.0, similarity)), 4))


def decision_of(s: ConversationSession) -> Decision | None:
    """The decision a completed session reached (None: no answer to keep)."""
    syn = s.synthesis
    if syn is None or not s.final_answer:
        return None
    tally = s.tally
    labels = {o.id: o.label for o in s.options}
    winner = tally.winner if tally else None
    last = max((v.cycle for v in s.votes), default=0)
    final = sorted((v for v in s.votes if v.cycle == last), key=lambda v: (v.option_id != winner, v.persona))
    return Decision(
        decision_id=s.session_id, decided_at=s.updated_at, question=_clip(s.request_text, 2000),
        options=[DecisionOption(id=o.id, label=o.label, description=_clip(o.description)) for o in s.options],
        outcome=_clip(labels.get(winner or "", "") or syn.recommendation, 300), winner=winner,
        consensus=tally.consensus if tally else "none", tally=dict(tally.counts) if tally else {},
        recommendation=_clip(syn.recommendation, 1200),
        arguments=[_clip(f"{v.persona} ({v.option_id}): {v.rationale}") for v in final][:ITEMS],
        assumptions=[_clip(a.assumption) for a in s.assumption_log][:ITEMS],
        dissent=[_clip(x) for x in syn.dissent][:ITEMS], personas=[p.name for p in s.personas])
