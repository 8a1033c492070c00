"""The seating and the spending in words: which persona speaks with which model, a seat that fell back, the most a
session will spend (one line, before its first model call) and what a budget cut to fit."""

from __future__ import annotations

from council.present.text import join_names, plural
from council.session.budget import BudgetCut, CallPlan
from council.session.seating import FallbackReason, ModelChoice, Seating, SeatMiss

PHASES = {"start": "", "more_questions": "More questions: ", "extend": "Extended debate: ",
          "reopen": "Re-opened debate: ", "retry": "Resuming: ", "follow_up": ""}
REASONS: dict[FallbackReason, str] = {"model_unavailable": "it is not available",
                                      "no_consent": "Council has no permission to use it",
                                      "model_failed": "it failed"}


def by_model(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} on {label}" for label, n in counts.items())


def cut_words(cut: BudgetCut, budget: int | None) -> str:
    """What a budget cut to fit, in words (empty: nothing)."""
    parts = []
    if cut.cycles_from is not None:
        parts.append(f"fewer debate cycles (from {cut.cycles_from})")
    if cut.seats_from is not None:
        left_out = f": {join_names(cut.dropped_seats)} left out" if cut.dropped_seats else ""
        parts.append(f"fewer advisors (from {cut.seats_from}{left_out})")
    if cut.clarifier:
        parts.append("no clarifying questions")
    if not parts:
        return ""
    within = f"to fit the budget of {plural(budget, 'model call')}" if budget is not None else "to fit the budget"
    return f"{within}: " + "; ".join(parts)


def cost_line(plan: CallPlan) -> str:
    """One line before the first model call of a phase (a follow-up's is not shown)."""
    if plan.phase == "follow_up":
        return ""
    retries = plan.max_calls - plan.planned  # repairs, fallbacks and failed requests sent again
    spare = f" ({plan.planned} planned, up to {plural(retries, 'retry', 'retries')})" if retries else \
        " (no room for retries: a failed call is not tried again)"
    line = f"{PHASES.get(plan.phase, '')}at most {plural(plan.max_calls, 'model call')}{spare}"
    if len(plan.by_model) > 1:  # one model: the session's model note names it
        line += f" — {by_model(plan.by_model)}"
    cut = cut_words(plan.cut, plan.budget) if plan.cut else ""
    if cut:
        line += f"; {cut}"
    elif plan.budget is not None:
        line += f"; within the budget of {plural(plan.budget, 'model call')}"
    line = line[0].upper() + line[1:]
    return f"_💰 {line}._\n\n"


def seating(s: Seating) -> str:
    """The seats, when they are on more than one model (one model is said by the cost line), and the entries of a
    persona → model map that did not apply (whatever the seats)."""
    out = ""
    if s.differs:
        seats = "; ".join(f"{seat.persona} → {seat.model.label}" + _why(seat.why) for seat in s.seats)
        out = f"_🪑 Seats: {seats}. The moderator and the chair: {s.chair.label}._\n\n"
    if s.misses:
        out += f"_⚠️ The seating map did not apply in full: {'; '.join(_miss(m, s) for m in s.misses)}._\n\n"
    return out


def _miss(m: SeatMiss, s: Seating) -> str:
    shown = ", ".join(m.valid[:20]) + (" …" if len(m.valid) > 20 else "")
    if m.reason == "no_persona":
        return f"“{m.persona}” names no persona" + (f" (the personas: {shown})" if shown else "")
    return (f"{m.persona} → “{m.model_id}”: no model with that id is on offer" +
            (f" (offered: {shown})" if shown else "") + f", so {m.persona} speaks with {s.model_of(m.persona).label}")


def _why(why: str) -> str:
    return {"map_unknown": " (the model it was given is not on offer)", "config": " (configured)"}.get(why, "")


def fell_back(personas: list[str], old: ModelChoice, new: ModelChoice, reason: FallbackReason) -> str:
    return (f"_⚠️ {old.label} cannot be used ({REASONS[reason]}): {join_names(personas)} "
            f"{'speaks' if len(personas) == 1 else 'speak'} with {new.label} from now on._\n\n")


def calls_line(s) -> str:
    """The model calls the session made against what it said, per model that answered (a model that only failed
    is not named: its calls are counted as failed). Empty: no calls."""
    m = s.metadata
    if not m.calls:
        return ""
    stated = f" (it said at most {s.call_plans[-1].call_limit})" if s.call_plans else ""
    answered = {label: n - m.failed_by_model.get(label, 0) for label, n in m.calls_by_model.items()}
    answered = {label: n for label, n in answered.items() if n > 0}
    failed = sum(m.failed_by_model.values())
    parts = [by_model(answered)] if len(answered) > 1 else []
    if failed:
        parts.append(f"{failed} failed")
    where = f" — {'; '.join(parts)}" if parts else ""
    return f"_Model calls: {m.calls}{stated}{where}._"


def calls_made(s) -> str:
    """The transcript's last line (see :func:`calls_line`)."""
    line = calls_line(s)
    return f"\n{line}\n" if line else ""


def usage(s) -> str:
    """The line under the council's answer in the chat (see :func:`calls_line`)."""
    line = calls_line(s)
    return f"{line}\n\n" if line else ""
