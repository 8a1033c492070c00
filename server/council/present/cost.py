"""The seating and the spending in words: which persona speaks with which model, a seat that fell back, the most a
session will spend (one line, before its first model call) and what a budget cut to fit."""

from __future__ import annotations

from council.present.text import join_names
from council.session.budget import BudgetCut, CallPlan
from council.session.seating import FallbackReason, ModelChoice, Seating
from council.words import n, t

PHASES = ("more_questions", "extend", "reopen", "retry")  # the phases a cost line names (phase.<phase>)


def by_model(counts: dict[str, int]) -> str:
    return ", ".join(t("cost.on", count=count, label=label) for label, count in counts.items())


def cut_words(cut: BudgetCut, budget: int | None) -> str:
    """What a budget cut to fit, in words (empty: nothing)."""
    parts = []
    if cut.cycles_from is not None:
        parts.append(t("cost.fewer_cycles", before=cut.cycles_from))
    if cut.seats_from is not None:
        left_out = t("cost.left_out", names=join_names(cut.dropped_seats)) if cut.dropped_seats else ""
        parts.append(t("cost.fewer_seats", before=cut.seats_from, left_out=left_out))
    if cut.clarifier:
        parts.append(t("cost.no_questions"))
    if not parts:
        return ""
    within = t("cost.to_fit_budget", calls=n(budget, "model_call_of")) if budget is not None else t("cost.to_fit")
    return f"{within}: " + "; ".join(parts)


def cost_line(plan: CallPlan) -> str:
    """One line before the first model call of a phase (a follow-up's is not shown)."""
    if plan.phase == "follow_up":
        return ""
    retries = plan.max_calls - plan.planned
    spare = t("cost.spare", planned=plan.planned, retries=n(retries, "retry")) if retries else ""
    phase = t(f"phase.{plan.phase}") if plan.phase in PHASES else ""
    line = phase + t("cost.at_most", calls=n(plan.max_calls, "model_call_of")) + spare
    if len(plan.by_model) > 1:  # one model: the session's model note names it
        line += f" — {by_model(plan.by_model)}"
    cut = cut_words(plan.cut, plan.budget) if plan.cut else ""
    if cut:
        line += f"; {cut}"
    elif plan.budget is not None:
        line += t("cost.within", calls=n(plan.budget, "model_call_of"))
    line = line[0].upper() + line[1:]
    return t("cost.line", line=line) + "\n\n"


def seating(s: Seating) -> str:
    """The seats, when they are on more than one model (else nothing: one model is said by the cost line)."""
    if not s.differs:
        return ""
    seats = "; ".join(f"{seat.persona} → {seat.model.label}" + _why(seat.why) for seat in s.seats)
    return t("seats.line", seats=seats, chair=s.chair.label) + "\n\n"


def _why(why: str) -> str:
    return t(f"seats.{why}") if why in ("map_unknown", "config") else ""


def fell_back(personas: list[str], old: ModelChoice, new: ModelChoice, reason: FallbackReason) -> str:
    key = "seats.fell_back_one" if len(personas) == 1 else "seats.fell_back_many"
    return t(key, old=old.label, reason=t(f"fallback.{reason}"), names=join_names(personas), new=new.label) + "\n\n"


def calls_made(s) -> str:
    """The transcript's last line: the model calls the session made, per model, against what it said."""
    m = s.metadata
    if not m.calls:
        return ""
    stated = t("calls.stated", limit=s.call_plans[-1].call_limit) if s.call_plans else ""
    where = f" — {by_model(m.calls_by_model)}" if len(m.calls_by_model) > 1 else ""
    return "\n" + t("calls.made", calls=m.calls, stated=stated, where=where) + "\n"
