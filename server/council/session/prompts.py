"""Prompt texts for every model call of a session, built from the session's state (no I/O, no model calls).

Each prompt ends with the JSON schema the reply must match; the schema's ``title`` (``ClarifierReply``,
``PersonaReply``, ``OptionsReply``, ``VoteReply``, ``SynthesisReply``) names what is asked. Peers appear
anonymised as "Advisor A/B/…" so personas weigh arguments, not names.
"""

from __future__ import annotations

import json
from string import ascii_uppercase
from typing import Any

from council.personas.contract import PersonaContract
from council.providers.base import ChatMessage
from council.providers.structured import inline_refs
from council.session.entities import ConversationSession, Depth, QuestionStatus
from council.session.outputs import PersonaResponse, Vote

CONTEXT_BUDGET = 6000  # characters of attached context carried into prompts

#: Reply budget (tokens) of one persona contribution at each depth.
DEPTH_TOKENS: dict[Depth, int] = {Depth.BRIEF: 1000, Depth.STANDARD: 1600, Depth.DEEP: 2600}

DEPTH_BULLETS: dict[Depth, tuple[int, int]] = {
    Depth.BRIEF: (2, 3),
    Depth.STANDARD: (5, 7),
    Depth.DEEP: (10, 14),
}

LANGUAGE_NAMES = {"ru": "Russian", "en": "English"}


def detect_language(text: str) -> str:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "en"
    cyrillic = sum(1 for c in letters if "\u0400" <= c <= "\u04ff")
    return "ru" if cyrillic / len(letters) > 0.3 else "en"


def json_instruction(schema: dict[str, Any]) -> str:
    return (
        "Reply with exactly one JSON object and nothing else: no prose, no code fences. "
        "It must match this JSON schema:\n" + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def compact_json_instruction(schema: dict[str, Any]) -> str:
    """For backends that enforce the schema themselves (grammar): just the keys. Small models copy any wording
    about types or counts into their answers, so there is none to copy."""
    props = inline_refs(schema).get("properties", {})
    return f"Reply with one JSON object with the keys {', '.join(props)}, filled with your own content."


def _language_line(session: ConversationSession) -> str:
    name = LANGUAGE_NAMES.get(session.settings.language, "English")
    return f"Write every text value in {name}, the user's language."


def problem_brief(session: ConversationSession) -> str:
    """The request, attached context, clarifications and assumptions, as every participant sees them."""
    parts = [f"The user's request:\n{session.request_text.strip()}"]
    if session.context_text:
        parts.append("Attached context (may be truncated):\n" + session.context_text[:CONTEXT_BUDGET])
    answered = [q for q in session.questions if q.status is QuestionStatus.ANSWERED and q.user_answer]
    if answered:
        parts.append("Clarifications from the user:\n" + "\n".join(
            f"- Q: {q.question}\n  A: {q.user_answer.answer}" for q in answered if q.user_answer))
    if session.assumption_log:
        parts.append("Assumptions the council made (the user skipped these questions):\n" + "\n".join(
            f"- {a.assumption}" for a in session.assumption_log))
    return "\n\n".join(parts)


def clarifier_messages(session: ConversationSession, schema: dict[str, Any], round_number: int,
                       asked: list[str]) -> list[ChatMessage]:
    system = (
        "You are the moderator of an advisory council. Before the council debates, decide whether the user's "
        "request is ambiguous enough that the answer would change depending on facts only the user knows "
        "(scope, timeline, priority, constraints, budget, audience, risk tolerance, goal). If the request is "
        "clear and specific, set needs_clarification to false and ask nothing. Otherwise ask at most 3 short, "
        "targeted questions, most decision-relevant first, each with 2-4 likely answers as choices and the "
        "default you would assume if the user skips it. " + _language_line(session)
    )
    user = problem_brief(session)
    if asked:
        user += "\n\nAlready asked (do not repeat):\n" + "\n".join(f"- {q}" for q in asked)
    user += f"\n\nThis is clarification round {round_number} of at most 3.\n\n" + json_instruction(schema)
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]


def persona_system(persona: PersonaContract, session: ConversationSession) -> str:
    lo, hi = DEPTH_BULLETS[session.settings.depth]
    return (
        f"You are {persona.name}, an advisor on a council.\n{persona.soul}\n"
        f"Your focus: {'; '.join(persona.focus)}.\nYour rules: {'; '.join(persona.constraints)}.\n"
        f"Be concrete and specific to the user's situation. In your JSON reply: position = your recommendation in "
        f"one sentence; summary, advice and next_steps = {lo}-{hi} short bullets each (next_steps ordered, first "
        f"step first); risks = what could go wrong; assumptions and questions = what you had to assume or would "
        f"ask; confidence = low, medium or high, with confidence_rationale; continue_debate = whether another "
        f"round could still change the advice. {_language_line(session)}"
    )


def peer_labels(session: ConversationSession, persona_name: str) -> dict[str, str]:
    """Anonymous labels for every other persona, stable for the session."""
    others = [p.name for p in session.personas if p.name != persona_name]
    return {name: f"Advisor {ascii_uppercase[i % 26]}" for i, name in enumerate(others)}


def digest(responses: list[PersonaResponse], labels: dict[str, str], votes: dict[str, Vote] | None = None) -> str:
    """A compact digest of peers' latest positions: stance, vote, key argument, changes (not full transcripts)."""
    votes = votes or {}
    lines = []
    for resp in responses:
        label = labels.get(resp.persona)
        if label is None:
            continue
        if resp.abstained:
            lines.append(f"- {label}: abstained.")
            continue
        key = resp.advice[0] if resp.advice else ""
        risk = f" Main risk: {resp.risks[0]}" if resp.risks else ""
        change = f" (changed position: {resp.change_reason})" if resp.changed_position else ""
        vote = votes.get(resp.persona)
        voted = f" Votes {vote.option_id} ({vote.confidence:.1f})." if vote else ""
        lines.append(f"- {label} [{resp.confidence}]: {resp.position}{change}{voted} Key argument: {key}{risk}")
    return "\n".join(lines)


def options_text(session: ConversationSession) -> str:
    return "\n".join(f"- {o.id}: {o.label} — {o.description}" for o in session.options)


def persona_messages(persona: PersonaContract, session: ConversationSession, schema: dict[str, Any],
                     cycle: int, previous: list[PersonaResponse], own_previous: PersonaResponse | None,
                     votes: dict[str, Vote] | None = None) -> list[ChatMessage]:
    user = problem_brief(session)
    if cycle == 1 or not previous:
        user += "\n\nGive your independent assessment."
    else:
        labels = peer_labels(session, persona.name)
        user += (
            f"\n\nDebate cycle {cycle}. The other advisors' current positions:\n{digest(previous, labels, votes)}"
        )
        own_vote = (votes or {}).get(persona.name)
        if own_previous is not None and not own_previous.abstained:
            voted = f" You voted {own_vote.option_id}." if own_vote else ""
            user += f"\n\nYour previous position: {own_previous.position}{voted}"
        if session.options:
            user += f"\n\nThe options on the table:\n{options_text(session)}"
        user += (
            "\n\nRespond to the strongest opposing argument. Keep your position and vote unless a specific new "
            "argument changes your mind; if you change either, set changed_position to true and name that "
            "argument in change_reason (changing without a new argument is flagged as conformity). Vote with "
            "option_id and vote_confidence (0 to 1). Set continue_debate to false when further debate would not "
            "change the advice."
        )
    user += "\n\n" + json_instruction(schema)
    return [ChatMessage(role="system", content=persona_system(persona, session)),
            ChatMessage(role="user", content=user)]


def options_messages(session: ConversationSession, schema: dict[str, Any],
                     latest: list[PersonaResponse]) -> list[ChatMessage]:
    labels = {r.persona: f"Advisor {ascii_uppercase[i % 26]}" for i, r in enumerate(latest)}
    system = (
        "You moderate an advisory council. From the advisors' positions, extract 2 to 4 concrete, mutually "
        "exclusive options the council can vote on (each a course of action, not a topic). "
        + _language_line(session)
    )
    user = (problem_brief(session) + "\n\nAdvisors' positions:\n" + digest(latest, labels)
            + "\n\n" + json_instruction(schema))
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]


def vote_messages(persona: PersonaContract, session: ConversationSession, schema: dict[str, Any],
                  own: PersonaResponse | None, peers: list[PersonaResponse]) -> list[ChatMessage]:
    options = options_text(session)
    user = problem_brief(session)
    if peers:
        user += "\n\nThe other advisors' final positions:\n" + digest(peers, peer_labels(session, persona.name))
    if own is not None and not own.abstained:
        user += f"\n\nYour position: {own.position}"
    user += (
        f"\n\nVote for exactly one option by its id, with your confidence from 0 to 1, your rationale, a "
        f"one-sentence conclusion for the user, and continue_debate: whether debating further could change the "
        f"advice.\nOptions:\n{options}\n\n"
        + json_instruction(schema)
    )
    return [ChatMessage(role="system", content=persona_system(persona, session)),
            ChatMessage(role="user", content=user)]


def synthesis_messages(session: ConversationSession, schema: dict[str, Any], outcome: str,
                       latest: list[PersonaResponse]) -> list[ChatMessage]:
    positions = "\n".join(
        f"- {r.persona} [{r.confidence}]: {r.position} Advice: {'; '.join(r.advice[:3])}"
        + (f" Risks: {'; '.join(r.risks[:3])}" if r.risks else "")
        for r in latest if not r.abstained
    )
    system = (
        "You chair an advisory council and write its single consolidated answer for the user: a clear "
        "recommendation, where the advisors agree, where they conflict, the risks and trade-offs, and one ordered "
        "list of next steps (first step first). Do not invent facts the advisors did not raise. "
        + _language_line(session)
    )
    user = (problem_brief(session) + f"\n\nAdvisors' final positions:\n{positions}\n\nVote outcome: {outcome}"
            + "\n\n" + json_instruction(schema))
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]


def repair_messages(messages: list[ChatMessage], bad_reply: str, reason: str) -> list[ChatMessage]:
    """The original conversation plus the bad reply and what was wrong with it, for one repair attempt."""
    return [*messages, ChatMessage(role="assistant", content=bad_reply[:4000]), ChatMessage(
        role="user",
        content=f"That reply could not be used: {reason}. Reply again with only the corrected JSON object.",
    )]
