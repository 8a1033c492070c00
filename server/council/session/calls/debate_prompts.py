"""A debate cycle's persona prompts, ordered for prefix caches: every persona of a cycle reads one shared part first.

The system message is the reply format and one role line (the same for all); the user message the problem brief,
evidence and tools, then in a debate cycle a digest of every advisor's previous position under session-stable
letters (:func:`advisor_labels`: "Advisor A/B/…", so personas weigh arguments, not names; a persona's own line is
there too), the options or the backing rule and the debate rules — and only then the persona's own part: its
contract, its letter, what to do. A llama.cpp or Ollama slot (and a cloud's prompt cache) reuses everything before
the contract from the persona asked just before. Texts and budgets shared with the other calls are
:mod:`~council.session.calls.prompts`'.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from string import ascii_uppercase
from typing import Any

from council.personas.contract import PersonaContract
from council.providers.base import ChatMessage
from council.session.calls.formats import extra_block, format_block
from council.session.calls.prompts import (
    DIGEST_BUDGET,
    FOCUS_BUDGET,
    OPTION_BUDGET,
    POINT_BUDGET,
    POSITION_BUDGET,
    RULES_BUDGET,
    SOUL_BUDGET,
    clip,
    evidence_block,
    items_text,
    language_line,
    paragraphs,
    problem_brief,
    tools_text,
)
from council.session.state.entities import ConversationSession
from council.session.state.outputs import PersonaResponse, Vote


def advisor_role(session: ConversationSession) -> str:
    """The role line every persona's system message carries, the same for all of them (who each is closes its user
    message: :func:`persona_contract`)."""
    return f"Be concrete and specific to the user's situation. {language_line(session)}"


def persona_contract(persona: PersonaContract) -> str:
    """Who the persona is and the rules it keeps, bounded; the same in every cycle (built once per persona)."""
    return _contract(persona.name, persona.soul, tuple(persona.focus), tuple(persona.constraints))


@functools.lru_cache(maxsize=256)
def _contract(name: str, soul: str, focus: tuple[str, ...], constraints: tuple[str, ...]) -> str:
    return (
        f"You are {name}, an advisor on a council.\n{clip(soul, SOUL_BUDGET)}\n"
        f"Your focus: {items_text(list(focus), FOCUS_BUDGET)}\n"
        f"Your rules: {items_text(list(constraints), RULES_BUDGET)}"
    )


def advisor_labels(session: ConversationSession) -> dict[str, str]:
    """Every persona's anonymous label, by the session's persona order: the same for every reader and every cycle
    (a persona is told its own, and backs another by it)."""
    return {p.name: f"Advisor {ascii_uppercase[i % 26]}" for i, p in enumerate(session.personas)}


def _line(label: str, resp: PersonaResponse, vote: Vote | None, budget: int) -> str:
    if resp.abstained:
        return f"- {label}: abstained."
    tag = f"{resp.confidence}, votes {vote.option_id} ({vote.confidence:.1f})" if vote else resp.confidence
    change = f" (changed: {clip(resp.change_reason, POINT_BUDGET)})" if resp.changed_position else ""
    key = f" Argument: {clip(resp.advice[0], POINT_BUDGET)}" if resp.advice else ""
    risk = f" Risk: {clip(resp.risks[0], POINT_BUDGET)}" if resp.risks else ""
    return clip(f"- {label} [{tag}]: {clip(resp.position, POSITION_BUDGET)}{change}{key}{risk}", budget)


def digest(responses: list[PersonaResponse], labels: dict[str, str], votes: dict[str, Vote] | None = None) -> str:
    """The labelled advisors' latest positions in the labels' order, one bounded line each: stance, vote, key
    argument, main risk, changes (all lines together within :data:`DIGEST_BUDGET`, or 200 characters a line)."""
    latest = {r.persona: r for r in responses}
    shown = [(label, latest[name]) for name, label in labels.items() if name in latest]
    budget = max(200, DIGEST_BUDGET // max(1, len(shown)))
    return "\n".join(_line(label, r, (votes or {}).get(r.persona), budget) for label, r in shown)


DEBATE_RULES = (
    "Answer the strongest opposing argument in confidence_rationale. Keep your position and vote unless a new "
    "argument changes your mind; then set changed_position to true and put that argument, and whose it was, in "
    "change_reason (a change without one is flagged as conformity). Your earlier summary, advice, next_steps and "
    "risks stand: in each write only a point this cycle added (one at most; your new position's first, if it "
    "changed), or leave it empty. Set continue_debate to false if more debate would not change your advice."
)


BACKING_RULE = ("Your vote this cycle is whose recommendation you back: set backs to own (your previous position) or "
                "to the letter of the advisor whose recommendation you now support.")


def persona_messages(persona: PersonaContract, session: ConversationSession, schema: dict[str, Any],
                     cycle: int, previous: list[PersonaResponse],
                     votes: dict[str, Vote] | None = None) -> list[ChatMessage]:
    """One persona's prompt in ``cycle`` (``previous``: every advisor's replies of the cycle before, its own
    included; ``votes``: their votes)."""
    return _CycleText.of(session, schema, cycle, previous, votes).messages(persona)


def cycle_messages(personas: list[PersonaContract], session: ConversationSession, schema: dict[str, Any],
                   cycle: int, previous: list[PersonaResponse],
                   votes: dict[str, Vote] | None = None) -> dict[str, list[ChatMessage]]:
    """:func:`persona_messages` of every persona in a cycle, the part they all read built once."""
    shared = _CycleText.of(session, schema, cycle, previous, votes)
    return {p.name: shared.messages(p) for p in personas}


@dataclass(frozen=True)
class _CycleText:
    """What every persona's prompt in a cycle shares, in the order it is sent: the system message (the reply
    format, the role), then the user message's brief (request, evidence, tools) and, in a debate cycle, the digest
    of every advisor, the options (or the backing rule) and the debate rules, then the debate keys. Each persona's
    own part comes after all of it (:meth:`messages`)."""

    system: str
    shared: str
    labels: dict[str, str]
    spoke: frozenset[str]  # the advisors whose previous reply the digest shows (not an abstention)
    debate: bool

    @classmethod
    def of(cls, session: ConversationSession, schema: dict[str, Any], cycle: int,
           previous: list[PersonaResponse], votes: dict[str, Vote] | None) -> _CycleText:
        labels = advisor_labels(session)
        debate = cycle > 1 and bool(previous)
        parts = [problem_brief(session), evidence_block(session), tools_text(session)]
        if debate:
            parts.append(f"Debate cycle {cycle}. Every advisor's current position, yours included:\n"
                         f"{digest(previous, labels, votes)}")
            if session.options:
                parts.append("The options on the table:\n" + "\n".join(
                    f"- {o.id}: {clip(o.label, OPTION_BUDGET)}" for o in session.options))
            elif "backs" in schema.get("properties", {}):  # beside the options call: the vote is whom you back
                parts.append(BACKING_RULE)
            parts.append(DEBATE_RULES)
        parts.append(extra_block(schema))
        return cls(format_block(schema) + "\n\n" + advisor_role(session), paragraphs(*parts), labels,
                   frozenset(r.persona for r in previous if not r.abstained), debate)

    def messages(self, persona: PersonaContract) -> list[ChatMessage]:
        """``persona``'s prompt: the shared part, then its contract, its letter (in a debate cycle: its line in the
        digest is its previous position and vote), and what to do."""
        own: list[str] = [persona_contract(persona)]
        if not self.debate:
            own.append("Give your independent assessment.")
        else:
            label = self.labels.get(persona.name)
            if label is not None:  # its line in the digest is its previous position and vote: not repeated
                own.append(f"You are {label} in the list above" + (": that line is your previous position."
                                                                     if persona.name in self.spoke else "."))
            own.append("Give your assessment for this cycle.")
        return [ChatMessage(role="system", content=self.system),
                ChatMessage(role="user", content=paragraphs(self.shared, "\n".join(own)))]
