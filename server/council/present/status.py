"""Short lines: progress notes, problems, session status and the replies to ``/status``, ``/personas`` and other
turns that do not run the council."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from council.present import failures
from council.present.answer import provider_name
from council.present.text import in_session_language, join_names, one_line
from council.session.entities import ConversationSession, SessionStatus
from council.words import n, speaking, t

# progress notes: kind → text (shown as transient progress, not kept in the transcript)
NOTES: dict[str, Callable[..., str]] = {
    "model": lambda model, provider: t("note.model", model=model or provider, where=provider_name(provider)),
    "reading": lambda: t("note.reading"),
    "no_questions": lambda why: t("note.no_questions", why=why),
    "thinking": lambda cycle, count: t("note.thinking", cycle=cycle, advisors=n(count, "advisor")),
    "options_fallback": lambda why: t("note.options_fallback", why=why),
    "unplaced": lambda personas: t("note.unplaced", names=join_names(personas)),
    "chair": lambda: t("note.chair"),
    "evidence": lambda count: t("note.evidence", pieces=n(count, "evidence_piece")),
    "follow_up": lambda: t("note.follow_up"),
    "budget_stop": lambda cycles: t("note.budget_stop", cycles=n(cycles, "cycle_after")),
}

# problems: kind → text (an ``error`` event; shown once, in plain words)
PROBLEMS: dict[str, Callable[..., str]] = {
    "model_failed": lambda role, failure: failures.failed(role, failure),
    "all_failed": lambda failed: failures.all_failed(failed),
}


def status_word(status: SessionStatus) -> str:
    """A session status in words ("debating")."""
    return t(f"status.{status.value}")


def note(kind: str, data: dict[str, Any]) -> str:
    return NOTES[kind](**data)


def problem(kind: str, data: dict[str, Any]) -> str:
    return f"> ⚠️ {PROBLEMS[kind](**data)}\n\n"


@in_session_language
def status(s: ConversationSession) -> str:
    parts = [t("status.line", status=status_word(s.status)),
             t("status.counts", rounds=s.clarification_rounds, cycles=s.debate_cycles, limit=s.cycle_limit,
               assumptions=len(s.assumption_log))]
    if s.active_question and s.status is SessionStatus.CLARIFYING:
        parts.append(t("status.waiting", question=one_line(s.active_question.question)))
    if s.stopped:
        parts.append(t("status.stopped"))
    return "  \n".join(parts) + "\n"


@in_session_language
def stopped(s: ConversationSession) -> str:
    """What ``session.stopped`` says: what was kept and how to go on."""
    if s.status in (SessionStatus.CREATED, SessionStatus.CLARIFYING):
        kept = t("stopped.answers_kept")
    else:
        kept = t("stopped.cycles_kept", cycles=n(s.debate_cycles, "completed_cycle"))
    return t("stopped.line", kept=kept) + "\n\n"


def resumed() -> str:
    return t("resumed") + "\n\n"


@in_session_language
def council_members(s: ConversationSession) -> str:
    names = join_names([f"**{p.name}**" for p in s.personas])
    return t("members", names=names) + "\n"


def library(names: list[str], language: str | None = None) -> str:
    """The personas one can name (``/personas`` before any session), in ``language``."""
    with speaking(language):
        return t("library", names=join_names(names)) + "\n"


@in_session_language
def hint(s: ConversationSession, word: str, extendable: bool) -> str:
    """The reply to a bare keyword with nothing to act on in this state (intent ``hint``): why, and what is
    possible now. Nothing runs and the session is unchanged."""
    said = f"“{one_line(word).strip(' .!?…')[:60]}”"
    if s.status is SessionStatus.COMPLETED:
        extend = t("hint.extend") if extendable else ""
        return t("hint.completed", said=said, extend=extend) + "\n"
    if s.status is SessionStatus.CANCELLED:
        return t("hint.cancelled", said=said) + "\n"
    why = t("hint.why_stopped") if s.stopped else t("hint.why_no_question")
    return t("hint.other", said=said, why=why) + "\n"


TURN_NOTES = ("over_budget", "cancelled", "no_more_questions", "stalled", "follow_up_failed", "follow_up_cancelled",
              "nothing_to_stop")  # the notes a turn result carries (turn.<kind>)


def turn_note(kind: str, s: ConversationSession) -> str | None:
    """The note a turn result carries (``message``), from the engine's note kind and the session (``stalled`` and
    ``stopped`` carry none: their event said it once)."""
    return _turn_note(s, kind)


@in_session_language
def _turn_note(s: ConversationSession, kind: str) -> str | None:
    if kind == "cancelled" and s.status is SessionStatus.COMPLETED:  # only a follow-up runs on a completed session
        kind = "follow_up_cancelled"
    if kind in ("stalled", "stopped"):
        return None
    if kind == "more_planned":
        waiting = t("turn.first", question=one_line(s.active_question.question)) if s.active_question else ""
        return t("turn.more_planned", more=n(len(s.planned_questions), "more_question"), waiting=waiting) + "\n"
    if kind not in TURN_NOTES:
        raise KeyError(kind)
    return t(f"turn.{kind}") + "\n"
