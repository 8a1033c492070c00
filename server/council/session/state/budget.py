"""The cost before it is spent: how many model calls a session may make, on which models, within a budget.

The rules (which calls a session makes, the bound of twice the plan, what a budget (``maxModelCalls``) cuts and in
which order, retries only from what the plan leaves free) are README.md's "The cost before it is spent"; here they
are counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from council.camel import CamelModel

MIN_CALLS = 3  # the smallest budget accepted (a council of one needs 2: its reply and the answer)
FIXED_CALLS = 2  # the options and the synthesis
ATTEMPTS = 2  # a call and one retry (a repair, a fallback, or a failed request sent again)
Speculate = Literal["auto", "always", "never"]  # whether cycle 2 starts beside the options call (README, "votes first")
SPECULATE_DOC = ("Whether cycle 2, the first debate cycle, starts beside the options call, to save a wait: its "
                 "calls are sent (and billed) even when the first vote settles it and they are cancelled. `auto` (the "
                 "default): only when every persona's model is free to call (embedded, scripted, or a server on "
                 "this machine) and their calls can run while the options call runs (on another server, or on one "
                 "that says it runs several requests at once: llama.cpp's server with `--parallel` 2 or more); "
                 "`always`; `never`.")


class BudgetCut(CamelModel):
    """What a budget cut from the plan to fit (all unset: nothing)."""

    cycles_from: int | None = Field(None, description="The cycle cap before the cut (the plan's `cycles` after).")
    seats_from: int | None = Field(None, description="The seats before the cut (the plan's `seats` after).")
    dropped_seats: list[str] = Field(default_factory=list, description="Personas left out to fit.")
    clarifier: bool = Field(False, description="The clarifying questions were dropped to fit.")


class CallPlan(CamelModel):
    """The most a session (or one user action in it) will spend, stated before the first call it makes."""

    phase: str = Field("start", description="What it plans: `start`, `more_questions`, `extend`, `reopen`, "
                                            "`revisit`, `follow_up` or `retry`.")
    planned: int = Field(ge=0, description="Calls if every planned call runs once (retries not counted).")
    max_calls: int = Field(ge=0, description="The hard bound on calls for this phase, retries included.")
    by_model: dict[str, int] = Field(default_factory=dict, description="Planned calls per model (its label).")
    budget: int | None = Field(None, description="The session's budget (`maxModelCalls`), if any.")
    budget_left: int | None = Field(None, description="What the budget allowed for this phase.")
    seats: int = 0
    cycles: int = 0
    clarifier: bool = False
    cut: BudgetCut | None = None
    expected_low: int = Field(0, ge=0, description="The calls the likely path makes: settled at the first vote (or, "
                                                   "once the options are set, at the next vote), retries not "
                                                   "counted; 0 in a plan journaled before expectations.")
    expected_high: int = Field(0, ge=0, description="The likely path with one debate cycle more than `expectedLow`.")
    speculates: bool = Field(False, description="The second cycle starts beside the options call: its calls are "
                                                "sent (and cancelled) even when the first vote settles it.")
    first_limit: int = Field(0, ge=0, description="Session total: first calls allowed so far (all phases).")
    call_limit: int = Field(0, ge=0, description="Session total: calls allowed so far, retries included.")


@dataclass(frozen=True)
class Shape:
    """A council's shape for counting: seats, cycle cap, whether it clarifies."""

    seats: int
    cycles: int
    clarifier: bool

    @property
    def alone(self) -> bool:
        """A council of one: one answer, no debate cycles, no options."""
        return self.seats == 1 and self.cycles > 0

    @property
    def planned(self) -> int:
        if self.alone:
            return int(self.clarifier) + 2
        return int(self.clarifier) + self.seats * self.cycles + FIXED_CALLS


def fit(shape: Shape, budget: int | None) -> tuple[Shape, BudgetCut | None]:
    """The largest shape within ``budget`` planned calls: fewer cycles first, then seats down to two, then no
    clarifier, then one seat. ``budget`` below the minimum is treated as the minimum (the caller validates)."""
    if budget is None or shape.planned <= budget:
        return shape, None
    budget = max(budget, MIN_CALLS)
    seats, cycles, clarifier = shape.seats, shape.cycles, shape.clarifier
    cycles = max(1, min(cycles, (budget - FIXED_CALLS - int(clarifier)) // max(1, seats)))
    if Shape(seats, cycles, clarifier).planned > budget and seats > 2:
        seats = max(2, budget - FIXED_CALLS - int(clarifier))
    if Shape(seats, cycles, clarifier).planned > budget and clarifier:
        clarifier = False
    if Shape(seats, cycles, clarifier).planned > budget:
        seats = max(1, budget - FIXED_CALLS)
    cut = BudgetCut(cycles_from=shape.cycles if cycles != shape.cycles else None,
                    seats_from=shape.seats if seats != shape.seats else None,
                    clarifier=shape.clarifier and not clarifier)
    return Shape(seats, cycles, clarifier), cut


def expected(shape: Shape, options_set: bool, speculate: bool) -> tuple[int, int]:
    """The calls of the likely path (README, "The cost before it is spent"), retries not counted: settled at the
    first vote after one round of replies (with ``speculate``, the second cycle's calls started beside the options
    call are sent all the same), and the same with one debate cycle more; neither beyond the plan. While the first
    vote is still to come, the high end also counts one small call per advisor, each of whom may be asked for its
    option (the moderator could not place it) before that debate cycle (beside: the debate cycle the high end
    counts is the third, and the asking has taken calls from it, so it fits already)."""
    planned = shape.planned - (1 if options_set else 0)
    if shape.alone or shape.cycles == 0:
        return planned, planned
    first = int(shape.clarifier) + shape.seats + (0 if options_set else 1) + 1  # one round, options, the answer
    beside = speculate and not options_set and shape.cycles >= 2
    low = first + (shape.seats if beside else 0)
    asking = 0 if options_set or beside else shape.seats  # at most every advisor unplaced and asked
    high = low + asking + (shape.seats if shape.cycles >= (3 if beside else 2) else 0)
    return min(low, planned), min(high, planned)


def max_calls(planned: int, budget_left: int | None) -> int:
    """The hard bound for ``planned`` first calls: each may be retried once, within what the budget leaves."""
    bound = planned * ATTEMPTS
    return bound if budget_left is None else max(planned, min(bound, budget_left))


def count_by_model(shape: Shape, seat_labels: list[str], chair: str) -> dict[str, int]:
    """Planned calls per model label: each seat's cycles on its model; clarifier, options and chair on the chat's."""
    out: dict[str, int] = {chair: int(shape.clarifier) + (1 if shape.alone else FIXED_CALLS)}
    for label in seat_labels[: shape.seats]:
        out[label] = out.get(label, 0) + (1 if shape.alone else shape.cycles)
    return out


def allows(plans: list[CallPlan], calls: int, first_calls: int, pending: int, pending_first: int,
           retry: bool) -> bool:
    """Whether one more call fits the stated bound. ``calls``/``first_calls``: made (journaled); ``pending``/
    ``pending_first``: started, not yet journaled. A session without plans (journaled before budgets) has none."""
    if not plans:
        return True
    last = plans[-1]
    made_first = first_calls + pending_first
    if not retry:
        return made_first < last.first_limit
    return calls + pending + (last.first_limit - made_first) + 1 <= last.call_limit


def first_calls_left(plans: list[CallPlan], first_calls: int) -> int | None:
    """First calls the stated plan still allows (None: no plan, no limit)."""
    return None if not plans else max(0, plans[-1].first_limit - first_calls)
