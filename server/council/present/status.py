"""Short lines: progress notes, problems, session status and the replies to ``/status``, ``/personas`` and other
turns that do not run the council."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from council.config import AGENT_CLI_KINDS
from council.personas.names import shown
from council.present import failures
from council.present.answer import provider_name
from council.present.text import in_session_language, join_names, one_line
from council.providers.agent_cli import DEFAULT_MODEL
from council.session.state.entities import ConversationSession, SessionStatus
from council.session.steps.answers import Earlier
from council.session.steps.revisit import revisable_questions
from council.words import n, speaking, t

# progress notes: kind → text (shown as transient progress, not kept in the transcript); the PLAIN_NOTES are the
# catalog's note.<kind> filled with the note's data as it is
NOTES: dict[str, Callable[..., str]] = {
    "model": lambda model, provider: t("note.model_default", where=provider_name(provider))
    if model == DEFAULT_MODEL and provider in AGENT_CLI_KINDS  # an agent CLI on its own default model
    else t("note.model", model=model or provider, where=provider_name(provider)),
    "thinking": lambda cycle, count: t("note.thinking", cycle=cycle, advisors=n(count, "advisor")),
    "unplaced": lambda personas: t("note.unplaced", names=join_names([shown(x) for x in personas])),
    "asking": lambda personas: t("note.asking", names=join_names([shown(x) for x in personas])),
    "evidence": lambda count: t("note.evidence", pieces=n(count, "evidence_piece")),
    "budget_stop": lambda cycles: t("note.budget_stop", cycles=n(cycles, "cycle_after")),
    "evidence_refused": lambda folder, why: t(f"note.evidence_{why}", folder=folder),
    "later_failed": failures.later_failed,
}
PLAIN_NOTES = ("reading", "no_questions", "alone", "options_fallback", "chair", "follow_up", "unusable")

# problems: kind → text (an ``error`` event; shown once, in plain words)
PROBLEMS: dict[str, Callable[..., str]] = {"model_failed": failures.failed, "all_failed": failures.all_failed,
                                           "no_consent": failures.no_consent}


def note(kind: str, data: dict[str, Any]) -> str:
    return t(f"note.{kind}", **data) if kind in PLAIN_NOTES else NOTES[kind](**data)


def problem(kind: str, data: dict[str, Any]) -> str:
    return f"> ⚠️ {PROBLEMS[kind](**data)}\n\n"


@in_session_language
def status(s: ConversationSession) -> str:
    q = s.active_question if s.status is SessionStatus.CLARIFYING else None
    rounds = t("status.round_open", round=q.round_number, completed=s.clarification_rounds) if q else \
        t("status.rounds", rounds=s.clarification_rounds)
    parts = [t("status.line", status=t(f"status.{s.status.value}")),
             t("status.counts", rounds=rounds, cycles=s.debate_cycles, limit=s.cycle_limit,
               assumptions=len(s.assumption_log))]
    if q is not None:
        parts.append(t("status.waiting", question=one_line(q.question)))
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


def cancelled() -> str:
    return t("event.cancelled") + "\n\n"


def resumed() -> str:
    return t("resumed") + "\n\n"


@in_session_language
def council_members(s: ConversationSession) -> str:
    names = join_names([f"**{shown(p.name)}**" for p in s.personas])
    return t("members", names=names) + "\n"


def library(names: list[str], language: str | None = None) -> str:
    """The personas one can name (``/personas`` before any session), in ``language``."""
    with speaking(language):
        return t("library", names=join_names([shown(x) for x in names])) + "\n"


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
              "nothing_to_stop", "revisit_kept")  # the notes a turn result carries (turn.<kind>)


@in_session_language
def revisable(s: ConversationSession) -> str:
    """The reply to ``/revisit`` that names no question: the questions the council assumed, to pick one."""
    options = revisable_questions(s)
    if not options:
        return t("revisit.nothing") + "\n"
    assumed = {a.related_question_id: a.assumption for a in s.assumption_log}
    rows = "".join(t("revisit.row", i=i, question=one_line(q.question),
                     assumption=one_line(assumed.get(q.question_id) or t("revisit.nothing_yet"))) + "\n"
                   for i, q in enumerate(options, 1))
    return t("revisit.which") + f"\n\n{rows}"


def turn_note(kind: str, s: ConversationSession) -> str | None:
    """The note a turn result carries (``message``), from the engine's note kind and the session (``stalled`` and
    ``stopped`` carry none, nor does a cancellation: their event said it once)."""
    with speaking(s.settings.language):
        if kind == "cancelled" and s.status is SessionStatus.COMPLETED:  # only a follow-up runs on a completed session
            kind = "follow_up_cancelled"
        if kind in ("stalled", "stopped") or (kind == "cancelled" and s.status is SessionStatus.CANCELLED):
            return None  # a cancellation's status.changed event said it once
        if kind == "which_question":
            return revisable(s)
        if kind == "more_planned":
            waiting = t("turn.first", question=one_line(s.active_question.question)) if s.active_question else ""
            return t("turn.more_planned", more=n(len(s.planned_questions), "more_question"), waiting=waiting) + "\n"
        if kind not in TURN_NOTES:
            raise KeyError(kind)
        return t(f"turn.{kind}") + "\n"


def replaced(reason: str) -> str:
    """The one line a session started in place of a lost one (``session.replaced``) opens with."""
    return t(f"replaced.{reason}") + "\n\n"


def reused(earlier: Earlier, message: str | None, language: str | None = None) -> str | None:
    """A turn's note with the line a session started after a reload lost the earlier one says about what it took
    from that one (what the user told it) first, in ``language``."""
    with speaking(language):
        took = t("and").join(n(k, what) for k, what in ((earlier.answered, "reused_answer"),
                                                         (earlier.skipped, "reused_skipped")) if k)
        them = t("reused.that_question") if earlier.reused == 1 else t("reused.those_questions")
        if earlier.again and took:
            line = t("reused.again_took", took=took, them=them)
        elif earlier.again:
            line = t("reused.again")
        elif took:
            line = t("reused.took", took=took, them=them)
        elif earlier.replies:
            line = t("reused.no_match")
        else:
            return message
    return "\n\n".join(m for m in (line, message) if m)
