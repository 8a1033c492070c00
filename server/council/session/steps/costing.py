"""The engine's side of the budget: state each phase's plan before its first call, and stop a debate that cannot
afford another cycle. A :class:`~council.session.state.budget.CallPlan` is fitted into what is left of
``settings.maxModelCalls``; its limits are session totals, which ``council.session.calls.structured`` enforces.
"""

from __future__ import annotations

from collections.abc import Sequence

from council.providers.base import Provider
from council.providers.registry import metered
from council.session.calls.structured import ProviderPicker
from council.session.state import budget as b
from council.session.state import records as r
from council.session.state.entities import ConversationSession
from council.session.state.runtime import Turn
from council.session.state.seating import model_label


def seat_labels(s: ConversationSession) -> tuple[list[str], str]:
    """Each persona's model label in council order, and the chair's (the session's default model when unseated)."""
    if s.seating is None:
        use = s.metadata.models
        chair = next((model_label(u.provider, u.model) for u in use.values()), "")
        return [chair] * len(s.personas), chair
    return [s.seating.model_of(p.name).label for p in s.personas], s.seating.chair.label


def remaining(s: ConversationSession, clarifier: bool) -> b.Shape:
    """What the session still has to do: (a clarifier,) every cycle up to its cap, the options if not set yet, the
    synthesis."""
    return b.Shape(len(s.personas), max(0, s.cycle_limit - s.debate_cycles), clarifier)


def planned_calls(s: ConversationSession, shape: b.Shape) -> int:
    """``shape``'s calls; the options call is not counted once the options are set."""
    return shape.planned - (1 if s.options else 0)


def state_plan(rt: Turn, phase: str, shape: b.Shape, cut: b.BudgetCut | None = None,
               calls: int | None = None, *, speculate: bool = False) -> b.CallPlan | None:
    """Fit ``shape`` (or ``calls`` plain calls, for a follow-up) into what is left of the budget and record the
    plan with its likely spend (``speculate``: the second cycle would start beside the options call); None when not
    even the smallest version fits (nothing is recorded: the caller says so, runs nothing)."""
    s = rt.session
    m = s.metadata
    budget = s.settings.max_model_calls
    left = None if budget is None else max(0, budget - m.calls)
    labels, chair = seat_labels(s)
    if calls is not None:
        if left is not None and left < calls:
            return None
        planned, by_model = calls, {chair: calls}
    else:
        planned = planned_calls(s, shape)
        if left is not None and planned > left:
            fixed = planned - shape.seats * shape.cycles
            cycles = (left - fixed) // max(1, shape.seats)
            if cycles < 1 and shape.cycles > 0:
                return None
            cut = (cut or b.BudgetCut()).model_copy(update={"cycles_from": shape.cycles})
            shape = b.Shape(shape.seats, max(0, cycles), shape.clarifier)
            planned = planned_calls(s, shape)
        by_model = b.count_by_model(shape, labels, chair)
        if s.options:
            by_model[chair] -= 1
    bound = b.max_calls(planned, left)
    low, high = (calls, calls) if calls is not None else b.expected(shape, bool(s.options), speculate)
    speculates = calls is None and speculate and not s.options and shape.cycles >= 2 and not shape.alone
    plan = b.CallPlan(phase=phase, planned=planned, max_calls=bound, by_model={k: v for k, v in by_model.items() if v},
                      expected_low=low, expected_high=high, speculates=speculates,
                      budget=budget, budget_left=left, seats=shape.seats if calls is None else 0,
                      cycles=shape.cycles if calls is None else 0, clarifier=shape.clarifier and calls is None,
                      cut=cut if cut is not None and (cut.cycles_from or cut.seats_from or cut.clarifier) else None,
                      first_limit=m.first_calls + planned, call_limit=m.calls + bound)
    rt.record(r.CallsPlanned(at=rt.clock(), plan=plan))
    return plan


async def speculates(s: ConversationSession, pick: ProviderPicker) -> bool:
    """Whether the second cycle starts beside the options call (the sidecar decides, once per step)."""
    if s.settings.speculate != "auto":  # no provider is picked
        return await speculating(s.settings.speculate, [], None)
    return await speculating("auto", [pick(p.name) for p in s.personas], pick("moderator"))


async def speculating(mode: str, seats: Sequence[Provider], options: Provider | None) -> bool:
    """The rule: ``always``, ``never``, or (``auto``, the default) only where it can save a wait and costs nothing:
    no seat's model (``seats``, read only under ``auto``) is metered — calls started beside the options call are sent
    and billed even when the first vote settles it and they are cancelled, so on premium requests or an MCP client's
    model the council waits for the options instead — and every seat's call can run while the ``options`` call (the
    moderator's model) runs (:func:`side_by_side`): on a server that runs one request at a time the speculative
    calls would only queue with the options call and delay it (README, "The cost before it is spent"). A consult's
    plan counts its calls by the same rule."""
    if mode != "auto":
        return mode == "always"
    if options is None or any(metered(seat) for seat in seats):
        return False
    return await side_by_side(seats, options)


async def side_by_side(seats: Sequence[Provider], options: Provider) -> bool:
    """Whether the seats' calls can run while the options call runs: a seat on another backend than the options
    call's can; a seat on the same one only when that backend runs at least two calls at once (what its provider
    knows: :meth:`~council.providers.base.Provider.parallel_calls`, asked only then)."""
    if all(seat.backend() != options.backend() for seat in seats):
        return True
    slots = await options.parallel_calls()
    return slots is None or slots >= 2


def can_afford_cycle(s: ConversationSession) -> bool:
    """Whether the stated plan leaves first calls for one more cycle and what must follow it (the options after
    the first cycle, the synthesis)."""
    left = b.first_calls_left(s.call_plans, s.metadata.first_calls)
    if left is None:
        return True
    return left >= len(s.personas) + (1 if s.options else b.FIXED_CALLS)
