"""The first vote, folded into the options call, and the close of the debate (conclusions and the tally).

After the independent first cycle every persona has stated its recommendation (``position``) and how sure it is
(``vote_confidence``). One moderator call turns the recommendations into 2–4 options and says which advisors
recommend each one; a persona listed under exactly one option votes for it with its own confidence. A persona
the moderator cannot place (under no option, or under several) abstains in that round: nothing is guessed.
Later cycles carry each persona's own vote. Only the final round's votes, on this fixed option list, are tallied.
"""

from __future__ import annotations

from string import ascii_uppercase

from council.session import records as r
from council.session.calls import CallSpec, ProviderPicker, call_structured
from council.session.debate import latest_responses, votes_of
from council.session.entities import CycleRef, MessageType
from council.session.outputs import OptionsReply, PersonaResponse, Vote, VoteOption, reply_schema
from council.session.prompts import options_messages
from council.session.runtime import Turn
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


def placed(latest: list[PersonaResponse], supporters: list[list[int]]) -> dict[str, int]:
    """Persona → index of the one option the moderator listed it under (advisors are numbered from 1)."""
    where: dict[int, list[int]] = {}
    for index, numbers in enumerate(supporters):
        for n in set(numbers):
            where.setdefault(n, []).append(index)
    return {resp.persona: where[i][0] for i, resp in enumerate(latest, start=1) if len(where.get(i, [])) == 1}


async def propose_options(rt: Turn, pick: ProviderPicker) -> None:
    """Options from the independent cycle's recommendations, and the first votes they imply."""
    s = rt.session
    if s.options:  # an extended debate votes again on the same fixed list
        return
    latest = [x for x in latest_responses(s) if not x.abstained]
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
    _first_votes(rt, latest, {name: options[i].id for name, i in where.items()})


def _first_votes(rt: Turn, latest: list[PersonaResponse], choice: dict[str, str]) -> None:
    """Record the first round's votes in council order: each placed persona's recommendation, its confidence."""
    s = rt.session
    cycle = s.debate_cycles
    for resp in latest:
        option = choice.get(resp.persona)
        if option is None:
            continue
        rt.record(r.VoteCast(at=rt.clock(), vote=Vote(
            persona=resp.persona, option_id=option, confidence=resp.vote_confidence, conclusion=resp.position,
            rationale=resp.position, continue_debate=resp.continue_debate,
            cycle=cycle)))
    unplaced = [x.persona for x in latest if x.persona not in choice]
    if unplaced:
        rt.note("unplaced", personas=unplaced)


def final_round(session) -> int:
    """The last round that has votes (only its votes are tallied)."""
    return max((v.cycle for v in session.votes), default=0)


def conclude(rt: Turn) -> None:
    """Each persona's conclusion (from its final-round vote) and the tally of that round only."""
    s = rt.session
    cycle = final_round(s)
    votes = {v.persona: v for v in votes_of(s, cycle)}
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
