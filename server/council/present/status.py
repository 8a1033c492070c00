"""Short lines: progress notes, problems, session status and the replies to ``/status``, ``/personas`` and other
turns that do not run the council."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from council.present import failures
from council.present.answer import PROVIDERS
from council.present.text import join_names, one_line, plural
from council.session.earlier import Earlier
from council.session.entities import ConversationSession, SessionStatus
from council.session.revisit import revisable_questions

# progress notes: kind → text (shown as transient progress, not kept in the transcript)
NOTES: dict[str, Callable[..., str]] = {
    "model": lambda model, provider: f"The council uses {model or provider} ({PROVIDERS.get(provider, provider)}).",
    "reading": lambda: "The moderator reads your question…",
    "no_questions": lambda why: f"The moderator could not prepare questions ({why}); the council goes ahead.",
    "thinking": lambda cycle, count: f"Cycle {cycle}: {plural(count, 'advisor')} thinking…",
    "alone": lambda persona: f"{persona} answers alone: a council of one does not debate itself.",
    "options_fallback": lambda why: f"The moderator could not extract options ({why}); the council votes on the "
                                    "positions themselves.",
    "unplaced": lambda personas: f"The moderator could not match the recommendation of {join_names(personas)} "
                                 "to one option: no vote from them this round.",
    "chair": lambda: "The chair writes the final answer…",
    "evidence": lambda count: f"Looking up {plural(count, 'piece')} of evidence in the workspace…",
    "follow_up": lambda: "The moderator looks back at the debate…",
    "budget_stop": lambda cycles: f"The budget of model calls allows no further cycle: the council votes after "
                                  f"{plural(cycles, 'cycle')}.",
}

# problems: kind → text (an ``error`` event; shown once, in plain words)
PROBLEMS: dict[str, Callable[..., str]] = {
    "model_failed": lambda role, failure: failures.failed(role, failure),
    "all_failed": lambda failed: failures.all_failed(failed),
    "no_consent": lambda models: failures.no_consent(models),
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
    q = s.active_question if s.status is SessionStatus.CLARIFYING else None
    rounds = f"Clarification round {q.round_number} of 3 ({s.clarification_rounds} completed)" if q else \
        f"Clarification rounds: {s.clarification_rounds} of 3"
    parts = [f"**Status:** {STATUS_WORDS[s.status]}.",
             f"{rounds} · debate cycles: {s.debate_cycles} of {s.cycle_limit} · assumptions: {len(s.assumption_log)}."]
    if s.active_question and s.status is SessionStatus.CLARIFYING:
        parts.append(f"Waiting for your answer to “{one_line(s.active_question.question)}”.")
    if s.stopped:
        parts.append("Stopped: `/retry` resumes it, `/cancel` ends it.")
    return "  \n".join(parts) + "\n"


def stopped(s: ConversationSession) -> str:
    """What ``session.stopped`` says: what was kept and how to go on."""
    if s.status in (SessionStatus.CREATED, SessionStatus.CLARIFYING):
        kept = "Your answers so far are kept"
    else:
        kept = f"{plural(s.debate_cycles, 'completed cycle')} kept"
    return f"**Stopped.** {kept} — resume with `/retry` (or the Resume button); `/cancel` ends the session.\n\n"


def cancelled() -> str:
    """What ``status.changed`` to cancelled says: the one line that tells the session was cancelled."""
    return "_The session was cancelled._\n\n"


def resumed() -> str:
    return "_Resuming where the council stopped._\n\n"


def council_members(s: ConversationSession) -> str:
    names = join_names([f"**{p.name}**" for p in s.personas])
    return f"On this council: {names}.\n"


def library(names: list[str]) -> str:
    return f"Available personas: {join_names(names)}. Name them in your question to choose the council.\n"


def hint(s: ConversationSession, word: str, extendable: bool) -> str:
    """The reply to a bare keyword with nothing to act on in this state (intent ``hint``): why, and what is
    possible now. Nothing runs and the session is unchanged."""
    said = f"“{one_line(word).strip(' .!?…')[:60]}”"
    if s.status is SessionStatus.COMPLETED:
        extend = ", send `/extend` to let the council debate further" if extendable else ""
        return (f"The council has already answered, so {said} has nothing to act on. Ask a follow-up question "
                f"about the answer{extend}, or send `/new <question>` to start a new session.\n")
    if s.status is SessionStatus.CANCELLED:
        return (f"This session was cancelled, so {said} has nothing to act on and it cannot be resumed. Type a "
                "question to start a new session.\n")
    why = "the session is stopped" if s.stopped else "no question is waiting for an answer"
    return (f"{said} has nothing to act on: {why}. Send `continue` (or `/retry`) to resume the session, "
            "`/cancel` to end it, or a new question to start another session.\n")


TURN_NOTES: dict[str, str] = {
    "over_budget": "The session's budget of model calls is spent: nothing more was run. Start a new session "
                   "(with a larger budget) to go on.",
    "cancelled": "The session was cancelled.",
    "no_more_questions": "The moderator has no further questions.",
    "stalled": "Every advisor failed; the session waits. Click **Retry** (or send `retry`) once the model works "
               "again.",
    "follow_up_failed": "The moderator could not answer that (see the error above). Ask again, or send "
                        "`/new <your question>` to start a new session.",
    "follow_up_cancelled": "The follow-up was stopped; the session and its answer are unchanged.",
    "nothing_to_stop": "Nothing is running, so there is nothing to stop; the session waits for you.",
    "revisit_kept": "You skipped it again: the council's assumption and its answer stand; nothing was re-run.",
}


def revisable(s: ConversationSession) -> str:
    """The reply to ``/revisit`` that names no question: the questions the council assumed, to pick one."""
    options = revisable_questions(s)
    if not options:
        return "Nothing to revisit: the council assumed nothing for you — every question was answered.\n"
    assumed = {a.related_question_id: a.assumption for a in s.assumption_log}
    rows = "".join(f"{i}. “{one_line(q.question)}” — assumed: "
                   f"{one_line(assumed.get(q.question_id, '(nothing yet)'))}\n" for i, q in enumerate(options, 1))
    return f"Which question should the council revisit? Send `/revisit <number>`:\n\n{rows}"


def turn_note(kind: str, s: ConversationSession) -> str | None:
    """The note a turn result carries (``message``), from the engine's note kind and the session (``stalled`` and
    ``stopped`` carry none, nor does a cancellation: their event said it once)."""
    if kind == "cancelled" and s.status is SessionStatus.COMPLETED:  # only a follow-up runs on a completed session
        kind = "follow_up_cancelled"
    if kind in ("stalled", "stopped"):
        return None
    if kind == "cancelled" and s.status is SessionStatus.CANCELLED:  # its status.changed event said it once
        return None
    if kind == "which_question":
        return revisable(s)
    if kind == "more_planned":
        waiting = f"; first, “{one_line(s.active_question.question)}”" if s.active_question else ""
        return f"The moderator will ask {plural(len(s.planned_questions), 'more question')}{waiting}.\n"
    return TURN_NOTES[kind] + "\n"


def reused(earlier: Earlier, message: str | None) -> str | None:
    """A turn's note with the line a session started after a reload lost the earlier one says about what it took
    from that one (what the user told it) first."""
    took = " and ".join(plural(n, what) for n, what in ((earlier.answered, "answer"),
                                                         (earlier.skipped, "skipped question")) if n)
    them = "that question" if earlier.reused == 1 else "those questions"
    if earlier.again and took:
        line = f"_The council takes up your earlier question again and reuses your {took} from before the " \
               f"reload: it does not ask {them} again._"
    elif earlier.again:
        line = "_The council takes up your earlier question again._"
    elif took:
        line = f"_The council reuses your {took} from before the reload: it does not ask {them} again._"
    elif earlier.replies:
        line = "_Your replies from before the reload do not match the moderator's new questions, so it asks them._"
    else:
        return message
    return "\n\n".join(m for m in (line, message) if m)
