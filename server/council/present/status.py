"""Short lines: progress notes, problems, session status and the replies to ``/status``, ``/personas`` and other
turns that do not run the council."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from council.present.answer import PROVIDERS
from council.present.text import join_names, one_line, plural
from council.session.entities import ConversationSession, SessionStatus

# progress notes: kind → text (shown as transient progress, not kept in the transcript)
NOTES: dict[str, Callable[..., str]] = {
    "model": lambda model, provider: f"The council uses {model or provider} ({PROVIDERS.get(provider, provider)}).",
    "reading": lambda: "The moderator reads your question…",
    "no_questions": lambda why: f"The moderator could not prepare questions ({why}); the council goes ahead.",
    "thinking": lambda cycle, count: f"Cycle {cycle}: {plural(count, 'advisor')} thinking…",
    "options_fallback": lambda why: f"The moderator could not extract options ({why}); the council votes on the "
                                    "positions themselves.",
    "unplaced": lambda personas: f"The moderator could not match the recommendation of {join_names(personas)} "
                                 "to one option: no vote from them this round.",
    "chair": lambda: "The chair writes the final answer…",
    "follow_up": lambda: "The moderator looks back at the debate…",
}

# problems: kind → text (an ``error`` event; shown once, in plain words)
PROBLEMS: dict[str, Callable[..., str]] = {
    "model_failed": lambda role, model, message: f"**{role}** could not answer: {model} failed — {message}",
    "model_crashed": lambda role, model, error: f"**{role}** could not answer: {model} crashed ({error}).",
    "all_failed": lambda: "Every advisor failed in this cycle, so the council stopped. Check the model, then "
                          "**Retry**.",
    "internal": lambda error: f"The council hit a problem of its own ({error}). Details are in the log.",
}

STATUS_WORDS = {
    SessionStatus.CREATED: "starting",
    SessionStatus.CLARIFYING: "asking clarifying questions",
    SessionStatus.DEBATING: "debating",
    SessionStatus.FINAL: "writing the final answer",
    SessionStatus.COMPLETED: "done",
    SessionStatus.CANCELLED: "cancelled",
}


def note(kind: str, data: dict[str, Any]) -> str:
    return NOTES[kind](**data)


def problem(kind: str, data: dict[str, Any]) -> str:
    return f"> ⚠️ {PROBLEMS[kind](**data)}\n\n"


def status(s: ConversationSession) -> str:
    parts = [f"**Status:** {STATUS_WORDS[s.status]}.",
             f"Clarification rounds: {s.clarification_rounds} of 3 · debate cycles: {s.debate_cycles} of "
             f"{s.cycle_limit} · assumptions: {len(s.assumption_log)}."]
    if s.active_question:
        parts.append(f"Waiting for your answer to “{one_line(s.active_question.question)}”.")
    return "  \n".join(parts) + "\n"


def council_members(s: ConversationSession) -> str:
    names = join_names([f"**{p.name}**" for p in s.personas])
    return f"On this council: {names}.\n"


def library(names: list[str]) -> str:
    return f"Available personas: {join_names(names)}. Name them in your question to choose the council.\n"


TURN_NOTES: dict[str, str] = {
    "cancelled": "The session was cancelled.",
    "no_more_questions": "The moderator has no further questions.",
    "stalled": "Every advisor failed; the session waits. Click **Retry** (or send `retry`) once the model works "
               "again.",
    "follow_up_failed": "The moderator could not answer that (see the error above). Ask again, or send "
                        "`/new <your question>` to start a new session.",
    "follow_up_cancelled": "The follow-up was stopped; the session and its answer are unchanged.",
}


def turn_note(kind: str, s: ConversationSession) -> str:
    """The note a turn result carries (``message``), from the engine's note kind and the session."""
    if kind == "cancelled" and s.status is SessionStatus.COMPLETED:  # only a follow-up runs on a completed session
        kind = "follow_up_cancelled"
    if kind == "more_planned":
        waiting = f"; first, “{one_line(s.active_question.question)}”" if s.active_question else ""
        return f"The moderator will ask {plural(len(s.planned_questions), 'more question')}{waiting}.\n"
    return TURN_NOTES[kind] + "\n"
