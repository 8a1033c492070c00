"""The first vote, folded into the options call, and the close of the debate (conclusions and the tally).

One moderator call turns the first cycle's recommendations into 2–4 options and says who recommends each; a persona
listed under exactly one option votes for it; each other advisor is asked which option is its own (one small call
each, all at once, its own recommendation and the options only; when the stated plan affords it), and one that
gives no usable answer abstains (nothing is guessed): the first vote is every advisor's, not the placed few's. The
call runs beside the second cycle (:func:`options_beside_next_cycle`, issue 24): nothing of that cycle is recorded
or shown until the first votes are in, and its records come in the order a cycle after the options would make
them (so the journal, replay, a stop and a restore see the usual sequence).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from string import ascii_uppercase

import anyio

from council.personas.contract import PersonaContract
from council.session.calls.parsing import ParseFailure
from council.session.calls.prompts import choice_messages, options_messages
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured
from council.session.state import records as r
from council.session.state.budget import first_calls_left
from council.session.state.convergence import Convergence, tally_votes
from council.session.state.entities import CycleRef, MessageType
from council.session.state.outputs import (
    OptionChoice,
    OptionsReply,
    PersonaResponse,
    Vote,
    VoteOption,
    reply_schema,
)
from council.session.state.runtime import Turn
from council.session.steps.debate import Beside, report_failures, run_cycle
from council.session.steps.persona_reply import option_of

ASK_TOKENS = 40  # an unplaced advisor's reply: one letter in a small object


def fallback_options(latest: list[PersonaResponse]) -> list[VoteOption]:
    """Options from the distinct positions themselves when the moderator cannot produce any."""
    seen: list[str] = []
    for resp in latest:
        text = resp.position.strip()
        if not resp.abstained and text and text.lower() not in (s.lower() for s in seen):
            seen.append(text)
    seen = seen[:4]
    if len(seen) < 2:
        seen.append("Gather more information before deciding")
    return [VoteOption(id=ascii_uppercase[i], label=text[:120], description=text) for i, text in enumerate(seen)]


def placed(latest: list[PersonaResponse], supporters: list[list[int]]) -> dict[str, int]:
    """Persona → index of the one option the moderator listed it under (advisors are numbered from 1)."""
    where: dict[int, list[int]] = {}
    for index, numbers in enumerate(supporters):
        for n in set(numbers):
            where.setdefault(n, []).append(index)
    return {resp.persona: where[i][0] for i, resp in enumerate(latest, start=1) if len(where.get(i, [])) == 1}


async def propose_options(rt: Turn, pick: ProviderPicker,
                          contracts: dict[str, PersonaContract] | None = None, *, beside: bool = False) -> None:
    """Options from the independent cycle's recommendations, and the first votes they imply; each advisor the
    moderator could not place is asked for its own (:func:`ask_unplaced`): with two of three placed and split, the
    third decides the first vote (a simulation, bench/vote_rules.py, found the split settled on confidence alone).
    ``beside``: the next cycle's calls run already (their cost is spent: only the synthesis must still fit)."""
    s = rt.session
    if s.options:  # an extended debate votes again on the same fixed list
        return
    latest = [x for x in s.latest_responses() if not x.abstained]
    schema = reply_schema(OptionsReply)
    schema["$defs"]["OptionDraft"]["properties"]["supporters"] = {
        "type": "array", "items": {"type": "integer", "minimum": 1, "maximum": max(1, len(latest))},
        "maxItems": max(1, len(latest))}
    spec = CallSpec(role="moderator", messages=options_messages(s, schema, latest), reply_model=OptionsReply,
                    schema=schema, max_tokens=600, temperature=0.2, cycle=s.debate_cycles)
    outcome = await call_structured(rt, pick, spec)
    if outcome.reply is not None:
        drafts = outcome.reply.options
        options = [VoteOption(id=ascii_uppercase[i], label=o.label.strip(), description=o.description.strip())
                   for i, o in enumerate(drafts)]
        where = placed(latest, [o.supporters for o in drafts])
    else:
        if outcome.failure is None:  # a failed call was reported as a problem already
            rt.note("options_fallback", why=outcome.note)
        options = fallback_options(latest)
        by_text = {o.description.lower(): i for i, o in enumerate(options)}
        where = {x.persona: by_text[x.position.strip().lower()] for x in latest
                 if x.position.strip().lower() in by_text}
    rt.record(r.OptionsSet(at=rt.clock(), options=options))
    unplaced = [x for x in latest if x.persona not in where]
    if unplaced and affords_asking(rt, len(unplaced), beside=beside):
        where |= await ask_unplaced(rt, pick, contracts or {}, unplaced, options)
    for resp in (x for x in latest if x.persona in where):  # the first votes, in council order
        rt.record(r.VoteCast(at=rt.clock(), vote=Vote(
            persona=resp.persona, option_id=options[where[resp.persona]].id, confidence=resp.vote_confidence,
            conclusion=resp.position, rationale=resp.position, continue_debate=resp.continue_debate,
            cycle=s.debate_cycles)))
    left = [x.persona for x in latest if x.persona not in where]
    if left:
        rt.note("unplaced", personas=left)


def affords_asking(rt: Turn, asked: int, *, beside: bool) -> bool:
    """Whether the stated plan has first calls for ``asked`` small calls and still for what it counted next: the
    next debate cycle the cap allows (after the one running already, ``beside``: its calls are made) and the
    synthesis. The asking takes calls the plan counted for a later cycle, never more than its bound (README, "The
    cost before it is spent")."""
    s = rt.session
    left = first_calls_left(s.call_plans, s.metadata.first_calls + rt.pending_first)
    if left is None:
        return True
    nxt = s.debate_cycles + (2 if beside else 1)  # beside: the next cycle's calls are made already
    return left >= asked + (len(s.personas) if nxt <= s.cycle_limit else 0) + 1


async def ask_unplaced(rt: Turn, pick: ProviderPicker, contracts: dict[str, PersonaContract],
                       unplaced: list[PersonaResponse], options: list[VoteOption]) -> dict[str, int]:
    """Each advisor the moderator could not place is asked, on its own seat and all at once, which option is its
    own (shown its own recommendation and the options, not its peers'): persona → the option's index. An advisor
    whose call failed or whose reply could not be used (after the one repair) is left out: it abstains."""
    s = rt.session
    ids = [o.id for o in options]
    schema = reply_schema(OptionChoice, {"option_id": {"enum": ids}})
    rt.note("asking", personas=[x.persona for x in unplaced])
    found: dict[str, int] = {}

    async def one(resp: PersonaResponse) -> None:
        contract = contracts.get(resp.persona)
        spec = CallSpec(role=resp.persona, reply_model=OptionChoice, schema=schema, max_tokens=ASK_TOKENS,
                        temperature=0.2, cycle=resp.cycle, check=names_an_option(options), messages=choice_messages(
                            s, schema, resp.persona, contract.description if contract else "", resp, options))
        outcome = await call_structured(rt, pick, spec)
        chosen = option_of(outcome.reply.option_id, options) if outcome.reply is not None else None
        if chosen is not None:
            found[resp.persona] = ids.index(chosen)

    async with anyio.create_task_group() as tg:
        for resp in unplaced:
            tg.start_soon(one, resp)
    return found


def names_an_option(options: list[VoteOption]) -> Callable[[OptionChoice], None]:
    """An answer is read as a vote is read in the debate (:func:`option_of`: ``b``, ``B) Wait``, ``2``, the label);
    one that names no option on the list is unusable: its one repair is asked, then the advisor abstains."""
    def check(reply: OptionChoice) -> None:
        if option_of(reply.option_id, options) is None:
            raise ParseFailure(f"option_id must be the letter of one option: {', '.join(o.id for o in options)}")
    return check


def conclude(rt: Turn) -> None:
    """Each persona's conclusion (from its final-round vote) and the tally of that round only."""
    s = rt.session
    cycle = s.final_round
    votes = {v.persona: v for v in s.votes_in(cycle)}
    labels = {o.id: o.label for o in s.options}
    abstentions = []
    where = CycleRef(cycle_type="debate", number=max(1, cycle))  # no votes at all: cycle 0, no conclusions
    for p in s.personas:
        vote = votes.get(p.name)
        if vote is None:
            abstentions.append(p.name)
            continue
        content = (f"{vote.conclusion} — votes {vote.option_id} ({labels.get(vote.option_id, '?')}), "
                   f"confidence {vote.confidence:.2f}")
        turn = rt.turn(p, MessageType.CONCLUSION, content, cycle=where, metadata={"optionId": vote.option_id})
        rt.record(r.ConclusionStated(at=rt.clock(), turn=turn))
    rt.record(r.TallySet(at=rt.clock(), tally=tally_votes(s.options, list(votes.values()), abstentions)))


Conclude = Callable[[Turn, int, Convergence | None], Convergence]


async def options_beside_next_cycle(rt: Turn, pick: ProviderPicker, contracts: dict[str, PersonaContract],
                                    cycle: int, previous: Convergence | None, *, conclude: Conclude,
                                    gather: Callable[[int], Awaitable[None]]) -> Convergence | None:
    """The options call for ``cycle`` (the independent one, just run) beside the next cycle. Returns the last
    convergence (the caller reads the stop reason off the last discussion), or None when every advisor failed in the
    next cycle (dropped: the session waits for a retry); when no reply of the next cycle could be used, it is
    dropped and the first cycle's convergence returned."""
    beside = Beside()
    following: list[PersonaResponse] = []

    async def next_cycle() -> None:
        await gather(cycle)  # what the first cycle asked for, in the next cycle's prompts
        following.extend(await run_cycle(rt, pick, contracts, cycle + 1, beside))

    async with anyio.create_task_group() as tg:
        tg.start_soon(next_cycle)
        await propose_options(rt, pick, contracts, beside=True)
        previous = conclude(rt, cycle, previous)
        if rt.session.discussions[-1].stop_reason is not None:
            tg.cancel_scope.cancel()  # settled at the first vote: the next cycle is not needed
            return previous
        beside.opened.set()
    verdict = report_failures(rt, following)
    if verdict == "stalled":  # every advisor failed: the cycle was dropped
        return None
    if verdict == "unusable":  # dropped too, and the debate ends: the council answers from the first cycle
        return previous
    return conclude(rt, cycle + 1, previous)
