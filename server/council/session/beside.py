"""The moderator's options call beside the second debate cycle (issue 24): one model-call stage where there were two.

After the independent first cycle the moderator turns the recommendations into options and places each one under
an option: the first votes (``vote_round.propose_options``). The second cycle does not need the options: its
prompts show the anonymised positions of the first, and each persona says whose recommendation it backs now
(``backs``: its own, or a peer's letter). So the two run at once. The second cycle's calls start at once (after the
evidence the first cycle asked for), while nothing of it is recorded or shown; once the options and the first
votes are in, the first cycle concludes. If that stops the debate (strong agreement at the first vote) the second
cycle's calls are cancelled and nothing of it is kept (the price of the overlap: those calls, within the stated
plan). Otherwise it is recorded and shown from there, each vote the option the backed recommendation was placed
under (``debate.backed_vote``): a persona backing a recommendation the moderator placed under no option has no vote
in it (nothing is guessed; the next cycle votes on the options). It concludes in turn. Every record is made in
the order a cycle after the options would make it, so the journal, replay, a stop and a restore see the usual
sequence.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from council.personas.contract import PersonaContract
from council.session.calls import ProviderPicker
from council.session.convergence import Convergence
from council.session.debate import Beside, report_failures, run_cycle
from council.session.outputs import PersonaResponse
from council.session.runtime import Turn
from council.session.vote_round import propose_options

Conclude = Callable[[Turn, int, Convergence | None], Convergence]


async def options_beside_next_cycle(rt: Turn, pick: ProviderPicker, contracts: dict[str, PersonaContract],
                                    cycle: int, previous: Convergence | None, *, conclude: Conclude,
                                    gather: Callable[[int], Awaitable[None]]) -> Convergence | None:
    """The options call for ``cycle`` (the independent one, just run) beside the next cycle; ``conclude`` concludes
    a cycle, ``gather`` serves the evidence a cycle asked for. Returns the last convergence (the caller reads the
    stop reason off the last discussion), or None when every advisor failed in the next cycle (dropped: the session
    waits for a retry)."""
    beside = Beside()
    following: list[PersonaResponse] = []

    async def next_cycle() -> None:
        await gather(cycle)  # what the first cycle asked for, in the next cycle's prompts
        following.extend(await run_cycle(rt, pick, contracts, cycle + 1, beside))

    async with anyio.create_task_group() as tg:
        tg.start_soon(next_cycle)
        await propose_options(rt, pick)
        previous = conclude(rt, cycle, previous)
        if rt.session.discussions[-1].stop_reason is not None:
            tg.cancel_scope.cancel()  # settled at the first vote: the next cycle is not needed
            return previous
        beside.opened.set()
    if all(x.abstained for x in following):
        rt.live.drop_open_cycle("all_failed")
        report_failures(rt, following)
        return None
    report_failures(rt, following)
    return conclude(rt, cycle + 1, previous)
