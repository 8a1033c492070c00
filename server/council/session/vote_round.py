"""The closing vote: the moderator turns the final positions into 2–4 options; every persona votes once.

Votes are cast concurrently and committed in persona order, each with the persona's conclusion turn. Only this
round's votes, on this fixed option list, are tallied.
"""

from __future__ import annotations

from string import ascii_uppercase

import anyio

from council.personas.contract import PersonaContract
from council.session import records as r
from council.session.calls import CallSpec, ProviderPicker, call_structured
from council.session.debate import latest_responses, votes_of
from council.session.entities import CycleRef, MessageType
from council.session.outputs import OptionsReply, PersonaResponse, Vote, VoteOption, VoteReply, reply_schema
from council.session.parsing import ParseFailure
from council.session.prompts import options_messages, vote_messages
from council.session.runtime import SessionRuntime
from council.session.voting import tally_votes


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


async def propose_options(rt: SessionRuntime, pick: ProviderPicker) -> None:
    s = rt.session
    if s.options:  # an extended debate votes again on the same fixed list
        return
    latest = [x for x in latest_responses(s) if not x.abstained]
    schema = reply_schema(OptionsReply)
    outcome = await call_structured(rt, pick, CallSpec(role="moderator", messages=options_messages(s, schema, latest),
                                                       reply_model=OptionsReply, schema=schema, max_tokens=600,
                                                       temperature=0.2))
    if outcome.reply is not None:
        options = [VoteOption(id=ascii_uppercase[i], label=o.label.strip(), description=o.description.strip())
                   for i, o in enumerate(outcome.reply.options)]
    else:
        rt.note("options_fallback", why=outcome.note)
        options = fallback_options(latest)
    rt.record(r.OptionsSet(at=rt.clock(), options=options))


async def cast_votes(rt: SessionRuntime, pick: ProviderPicker, contracts: dict[str, PersonaContract]) -> None:
    """Every persona votes once on the option list (after the independent first cycle)."""
    s = rt.session
    cycle = s.debate_cycles
    latest = latest_responses(s)
    schema = reply_schema(VoteReply, {"option_id": {"enum": [o.id for o in s.options]},
                                      "confidence": {"minimum": 0, "maximum": 1}})
    order = [p.name for p in s.personas]
    results: dict[str, Vote | None] = {}
    rt.note("voting")

    def check(reply: VoteReply) -> None:
        if reply.option_id.strip().upper() not in {o.id for o in s.options}:
            raise ParseFailure(f"option_id must be one of {', '.join(o.id for o in s.options)}")

    async def one(name: str) -> None:
        own = next((x for x in latest if x.persona == name), None)
        peers = [x for x in latest if x.persona != name]
        if own is not None and own.abstained:
            results[name] = None
            return
        spec = CallSpec(role=name, messages=vote_messages(contracts[name], s, schema, own, peers),
                        reply_model=VoteReply, schema=schema, max_tokens=300, temperature=0.2, cycle=cycle,
                        check=check)
        outcome = await call_structured(rt, pick, spec)
        reply = outcome.reply
        results[name] = None if reply is None else Vote(
            persona=name, option_id=reply.option_id.strip().upper(), confidence=min(1.0, max(0.0, reply.confidence)),
            rationale=reply.rationale, continue_debate=reply.continue_debate, conclusion=reply.conclusion,
            cycle=cycle)
        if reply is None:
            rt.note("no_vote", persona=name, why=outcome.note)

    async with anyio.create_task_group() as tg:
        for name in order:
            tg.start_soon(one, name)
    for name in order:  # recorded in council order, whatever the timing
        vote = results.get(name)
        if vote is not None:
            rt.record(r.VoteCast(at=rt.clock(), vote=vote))


def final_round(session) -> int:
    """The last round that has votes (only its votes are tallied)."""
    return max((v.cycle for v in session.votes), default=0)


def conclude(rt: SessionRuntime) -> None:
    """Each persona's conclusion (from its final-round vote) and the tally of that round only."""
    s = rt.session
    cycle = final_round(s)
    votes = {v.persona: v for v in votes_of(s, cycle)}
    labels = {o.id: o.label for o in s.options}
    abstentions = []
    for p in s.personas:
        vote = votes.get(p.name)
        if vote is None:
            abstentions.append(p.name)
            continue
        content = (f"{vote.conclusion} — votes {vote.option_id} ({labels.get(vote.option_id, '?')}), "
                   f"confidence {vote.confidence:.2f}")
        turn = rt.turn(p, MessageType.CONCLUSION, content, cycle=CycleRef(cycle_type="debate", number=cycle),
                       metadata={"optionId": vote.option_id})
        rt.record(r.ConclusionStated(at=rt.clock(), turn=turn))
    rt.record(r.TallySet(at=rt.clock(), tally=tally_votes(s.options, list(votes.values()), abstentions)))
