"""The seating and the spending in words: which persona speaks with which model, a seat that fell back, the most a
session will spend (one line, before its first model call) and what a budget cut to fit."""

from __future__ import annotations

from council.personas.names import shown
from council.present.answer import provider_name
from council.present.text import join_names, one_line
from council.providers.kinds import AGENT_CLI_KINDS, BY_KIND
from council.session.state.budget import BudgetCut, CallPlan
from council.session.state.entities import Spend
from council.session.state.seating import FallbackReason, ModelChoice, Seating, SeatMiss
from council.words import n, t

PHASES = ("more_questions", "extend", "reopen", "retry")  # the phases a cost line names (phase.<phase>)


def by_model(counts: dict[str, int]) -> str:
    return ", ".join(t("cost.on", count=count, label=label) for label, count in counts.items())


def on_agent_cli(counts: dict[str, int]) -> bool:
    """Whether any of these model labels (``claude:claude-sonnet-4-6``) is a seat on an agent CLI."""
    return any(label.split(":", 1)[0] in AGENT_CLI_KINDS for label in counts)


def cut_words(cut: BudgetCut, budget: int | None, seats: int) -> str:
    """What a budget cut to fit, in words (empty: nothing); ``seats``: the advisors left (one: it answers alone,
    so it has no debate cycles to cut)."""
    parts = []
    alone = cut.seats_from is not None and seats == 1
    if cut.cycles_from is not None and not alone:
        parts.append(t("cost.fewer_cycles", before=cut.cycles_from))
    if cut.seats_from is not None:
        dropped = [shown(x) for x in cut.dropped_seats]
        left_out = t("cost.left_out", names=join_names(dropped)) if dropped else ""
        parts.append(t("cost.alone" if alone else "cost.fewer_seats", before=cut.seats_from, left_out=left_out))
    if cut.clarifier:
        parts.append(t("cost.no_questions"))
    if not parts:
        return ""
    within = t("cost.to_fit_budget", calls=n(budget, "model_call_of")) if budget is not None else t("cost.to_fit")
    return f"{within}: " + "; ".join(parts)


def expected_words(low: int, high: int) -> str:
    """The likely spend in words: "7 model calls", or a range "7–11 model calls"."""
    return n(low, "model_call") if low >= high else n(high, "model_call_range", low=low)


def cost_line(plan: CallPlan) -> str:
    """One line before the first model call of a phase (a follow-up's is not shown): what the likely path spends
    (settled at the first vote; with a debate cycle more), then the hard bound."""
    if plan.phase == "follow_up":
        return ""
    retries = plan.max_calls - plan.planned  # repairs, fallbacks and failed requests sent again
    spare = t("cost.spare", planned=plan.planned, retries=n(retries, "retry")) if retries else t("cost.no_spare")
    phase = t(f"phase.{plan.phase}") if plan.phase in PHASES else ""
    likely = ""
    if plan.expected_high:  # a plan journaled before expectations has none
        why = [t("cost.settled_first", low=plan.expected_low, high=plan.expected_high)] \
            if plan.expected_low < plan.expected_high else []
        if plan.speculates:
            why.append(t("cost.beside", count=plan.seats))
        likely = t("cost.expected", calls=expected_words(plan.expected_low, plan.expected_high))
        likely += (f" ({'; '.join(why)})" if why else "") + "; "
    line = phase + likely + t("cost.at_most", calls=n(plan.max_calls, "model_call_of")) + spare
    if len(plan.by_model) > 1 or on_agent_cli(plan.by_model):  # one model: the session's model note names it,
        line += f" — {by_model(plan.by_model)}"  # but not the calls a CLI's plan will bill
    cut = cut_words(plan.cut, plan.budget, plan.seats) if plan.cut else ""
    if cut:
        line += f"; {cut}"
    elif plan.budget is not None:
        line += t("cost.within", calls=n(plan.budget, "model_call_of"))
    line = line[0].upper() + line[1:]
    return t("cost.line", line=line) + "\n\n"


def seating(s: Seating) -> str:
    """The seats, when they are on more than one model (one model is said by the cost line), and the entries of a
    persona → model map that did not apply (whatever the seats); seats on agent CLIs nobody chose (found on PATH) are
    said to be so, and how each CLI seated bills a call."""
    out = ""
    clis = list(dict.fromkeys(m.provider for m in (s.chair, *(x.model for x in s.seats))
                              if m.provider in AGENT_CLI_KINDS))
    if s.found:
        out += t("seats.found", clis=join_names([provider_name(k) for k in clis]),
                 chair=provider_name(s.chair.provider)) + "\n\n"
    if s.differs:
        seats = "; ".join(f"{shown(seat.persona)} → {seat.model.label}"
                          + (t(f"seats.{seat.why}") if seat.why in ("map_unknown", "config") else "")
                          for seat in s.seats)
        out += t("seats.line", seats=seats, chair=s.chair.label) + "\n\n"
    if s.misses:
        out += t("seats.misses", misses="; ".join(_miss(m, s) for m in s.misses)) + "\n\n"
    if clis:
        out += t("seats.bills", bills="; ".join(t(BY_KIND[kind].cli.bills) for kind in clis)) + "\n\n"
    return out


def _miss(m: SeatMiss, s: Seating) -> str:
    valid = ", ".join(m.valid[:20]) + (" …" if len(m.valid) > 20 else "")
    if m.reason == "no_persona":
        return t("seats.no_persona", name=m.persona) + (t("seats.the_personas", names=valid) if valid else "")
    if m.reason == "cli_not_installed":
        return (t("seats.cli_missing", persona=m.persona, model=m.model_id, why=m.detail)
                + t("seats.speaks_with", persona=shown(m.persona), label=s.model_of(m.persona).label))
    return (t("seats.no_model", persona=m.persona, model=m.model_id)
            + (t("seats.offered", names=valid) if valid else "")
            + t("seats.speaks_with", persona=shown(m.persona), label=s.model_of(m.persona).label))


def fell_back(personas: list[str], old: ModelChoice, new: ModelChoice, reason: FallbackReason,
              detail: str = "") -> str:
    """One line: the model a seat left, why, and who speaks with which model now; an agent CLI's ``detail`` is its
    failure with the fix ("Codex is not signed in: run `codex login` …"), said in place of the plain reason."""
    key = "seats.fell_back_one" if len(personas) == 1 else "seats.fell_back_many"
    names = join_names([shown(x) for x in personas])
    why = one_line(detail) if old.provider in AGENT_CLI_KINDS and detail.strip() else t(f"fallback.{reason}")
    return t(key, old=old.label, reason=why, names=names, new=new.label) + "\n\n"


def calls_line(s) -> str:
    """The model calls the session made against what it said (the likely spend and the bound), per model that
    received them — answered or cancelled (a cancelled call was sent: a metered model bills it); a model that only
    failed is not named: its calls are counted as failed. Cancelled calls are named as such, apart from failed ones.
    Empty: no calls."""
    m = s.metadata
    if not m.calls:
        return ""
    stated = ""
    if s.call_plans:
        low = sum(p.expected_low for p in s.call_plans)
        high = sum(p.expected_high for p in s.call_plans)
        limit = s.call_plans[-1].call_limit
        stated = t("calls.stated_expected", expected=expected_words(low, high), limit=limit) \
            if all(p.expected_high for p in s.call_plans) else t("calls.stated", limit=limit)
    received = {label: k - m.failed_by_model.get(label, 0) for label, k in m.calls_by_model.items()}
    received = {label: k for label, k in received.items() if k > 0}
    failed = sum(m.failed_by_model.values())
    cancelled = sum(m.cancelled_by_model.values())
    parts = [by_model(received)] if len(received) > 1 else []
    tail = ([t("calls.cancelled", cancelled=cancelled)] if cancelled else []) \
        + ([t("calls.failed", failed=failed)] if failed else [])
    if tail:
        parts.append(", ".join(tail))
    where = f" — {'; '.join(parts)}" if parts else ""
    spent = spent_words(m.spent_by_model)
    return t("calls.made", calls=m.calls, stated=stated, where=where) + (f" {spent}" if spent else "")


def spent_words(spent: dict[str, Spend]) -> str:
    """What the models said their calls used, per model (tokens, cost, premium requests; empty: none said)."""
    parts = []
    for label, used in spent.items():
        figures = []
        if used.input_tokens is not None or used.output_tokens is not None:
            figures.append(t("calls.tokens", tokens_in=used.input_tokens or 0,
                             tokens_out=used.output_tokens or 0))
        if used.cost_usd is not None:
            figures.append(t("calls.cost", usd=f"{used.cost_usd:.4f}"))
        if used.premium_requests is not None:
            figures.append(t("calls.premium", count=f"{used.premium_requests:g}"))
        if figures:
            parts.append(f"{label} {', '.join(figures)}")
    return t("calls.spent", spent="; ".join(parts)) if parts else ""


def usage(s) -> str:
    """The line under the council's answer in the chat (see :func:`calls_line`)."""
    line = calls_line(s)
    return f"{line}\n\n" if line else ""
