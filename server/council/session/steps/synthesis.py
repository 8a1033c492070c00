"""The final synthesis: one consolidated answer from the final positions and the vote (README, "answers once").

The chair model writes the recommendation, agreements, conflicts, risks, next steps and its judgement of the
numbered assumptions; if it fails, the answer is consolidated from the personas' replies. Either way what the user
answered, the assumptions, what the answer hinges on (``hinges``), the dissent, the Devil's Advocate's counterpoints,
the vote and what the debate changed come from the session itself, never from a model.
"""

from __future__ import annotations

from council.personas.contract import PersonaContract
from council.personas.names import shown
from council.session.calls.prompts import DEPTH_BULLETS, DEPTH_TOKENS, synthesis_messages
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured
from council.session.state import outputs
from council.session.state.convergence import describe_tally, tally_votes
from council.session.state.entities import ConversationSession, QuestionStatus, new_id
from council.session.state.runtime import Turn
from council.session.steps.hinges import hinge_schema, hinges
from council.word_match import item_key, unique_items
from council.words import speaking, t


def dissent(session: ConversationSession, contracts: dict[str, PersonaContract]) -> list[str]:
    """Those who voted against the winner in the final vote, one entry each with their reasons (an always-included
    persona's, the Devil's Advocate's, with its counterpoints too). Nobody else dissents: a persona that voted for
    the winner agreed, whatever it warned of (its counterpoints are among the risks); one that abstained voted for
    nothing (the notes name it); without a winner (a tie, no vote) there is nothing to dissent from — nor from a
    head-count tie that its voters' confidence breaks: one side of "A 1 · B 1" is no dissent from the other."""
    tally = session.tally
    if tally is None or tally.winner is None or tally.consensus == "tie":
        return []
    latest = {x.persona: x for x in session.latest_responses() if not x.abstained}
    entries = []
    with speaking(session.settings.language):
        for v in session.votes_in(session.final_round):
            if v.option_id == tally.winner:
                continue
            entry = t("synthesis.voted", persona=shown(v.persona), option=v.option_id, why=v.rationale)
            contract, resp = contracts.get(v.persona), latest.get(v.persona)
            if contract is not None and contract.always_include and resp is not None and resp.risks:
                entry = entry.rstrip(".") + "." + t("synthesis.risks", risks="; ".join(resp.risks[:3]))
            entries.append(entry)
    return entries


def with_counterpoints(session: ConversationSession, risks: list[str],
                       contracts: dict[str, PersonaContract]) -> list[str]:
    """The risks and trade-offs with every always-included persona's (the Devil's Advocate's) counterpoints from
    its last usable reply added, each once (seed 000: they reach ``risks_tradeoffs`` on every surface)."""
    _, hi = DEPTH_BULLETS[session.settings.depth]
    out = list(risks)
    known = {item_key(x) for x in out}
    for name, contract in contracts.items():
        if not contract.always_include:
            continue
        usable = [x for x in session.responses if x.persona == name and not x.abstained]
        for risk in (max(usable, key=lambda x: x.cycle).risks[:hi] if usable else []):
            key = item_key(risk)
            if key and key not in known:
                known.add(key)
                out.append(risk.strip())
    return out


def _lead(session: ConversationSession, active: list[outputs.PersonaResponse]) -> list[outputs.PersonaResponse]:
    """The replies of those who voted for the tally's winner (all of ``active`` when none did)."""
    tally = session.tally
    winners = {v.persona for v in session.votes_in(session.final_round) if tally and v.option_id == tally.winner}
    return [x for x in active if x.persona in winners] or active


def recommended(session: ConversationSession, lead: list[outputs.PersonaResponse]) -> str:
    """The recommendation the replies alone give: the winning option's label, else the position of one of ``lead``
    (:func:`_lead`)."""
    tally = session.tally
    label = next((o.label for o in session.options if tally and o.id == tally.winner), None)
    with speaking(session.settings.language):
        return label or (lead[0].position if lead else t("synthesis.no_recommendation"))


def consolidate(session: ConversationSession, latest: list[outputs.PersonaResponse]) -> outputs.SynthesisReply:
    """A synthesis built from the replies alone (used when the chair model fails)."""
    with speaking(session.settings.language):
        _, hi = DEPTH_BULLETS[session.settings.depth]
        active = [x for x in latest if not x.abstained]
        lead = _lead(session, active)
        return outputs.SynthesisReply(
            recommendation=recommended(session, lead),
            agreements=unique_items([x.position for x in lead])[:5],
            conflicts=unique_items([f"{shown(x.persona)}: {x.position}" for x in active if x not in lead])[:5],
            risks_tradeoffs=unique_items([risk for x in active for risk in x.risks])[:8],
            next_steps=unique_items([step for x in lead for step in x.next_steps])[:hi] or [t("synthesis.revisit")],
            notes=[t("synthesis.no_chair")],
        )


async def synthesize(rt: Turn, pick: ProviderPicker,
                     contracts: dict[str, PersonaContract]) -> outputs.CouncilSynthesis:
    s = rt.session
    latest = s.latest_responses()
    outcome_line = describe_tally(s.tally) if s.tally else "no vote"
    _, hi = DEPTH_BULLETS[s.settings.depth]
    few = {"maxItems": min(hi, 5)}
    schema = hinge_schema(outputs.reply_schema(outputs.SynthesisReply, {
        "next_steps": {"maxItems": hi}, "agreements": few, "conflicts": few, "risks_tradeoffs": {"maxItems": hi},
        "notes": {"maxItems": 3}}), s)
    rt.note("chair")
    stream_id = new_id()

    async def on_delta(chunk: str) -> None:
        rt.answer_text(stream_id, chunk)

    outcome = await call_structured(rt, pick, CallSpec(
        role="synthesizer", messages=synthesis_messages(s, schema, outcome_line, latest),
        reply_model=outputs.SynthesisReply, schema=schema, max_tokens=DEPTH_TOKENS[s.settings.depth], temperature=0.3),
        on_delta)
    reply = outcome.reply or consolidate(s, latest)
    if not any(ch.isalnum() for ch in reply.recommendation):  # no word in it (a tiny model's "}, {"): the vote's
        voters = _lead(s, [x for x in latest if not x.abstained])  # winner, as without a chair
        reply = reply.model_copy(update={"recommendation": recommended(s, voters)})
    notes = list(reply.notes)
    abstained = [x.persona for x in latest if x.abstained]
    with speaking(s.settings.language):
        if abstained:
            notes.append(t("synthesis.abstained", names=", ".join(shown(x) for x in abstained)))
    return outputs.CouncilSynthesis(
        recommendation=reply.recommendation.strip(),
        agreements=reply.agreements, conflicts=reply.conflicts,
        risks_tradeoffs=with_counterpoints(s, reply.risks_tradeoffs, contracts),
        next_steps=reply.next_steps, notes=notes, dissent=dissent(s, contracts),
        assumptions=[a.assumption for a in s.assumption_log], user_answers=user_answers(s),
        source="model" if outcome.reply is not None else "consolidated",
        hinges=hinges(s, reply.hinges), debate=debate_effect(s),
    )


def user_answers(session: ConversationSession) -> list[outputs.UserAnswer]:
    """What the user told the council: each question they answered, in the order asked, with their answer."""
    return [outputs.UserAnswer(question_id=q.question_id, question=q.question, answer=q.user_answer.answer)
            for q in session.questions if q.status is QuestionStatus.ANSWERED and q.user_answer is not None]


def _by_persona(votes: list[outputs.Vote], cycle: int) -> dict[str, outputs.Vote]:
    return {v.persona: v for v in votes if v.cycle == cycle}


def _move(name: str, rounds: list[int], votes: list[outputs.Vote],
          replies: dict[tuple[str, int], outputs.PersonaResponse], first: str | None,
          final: str | None) -> outputs.PositionMove:
    """The persona's move, with the argument of the last cycle in which its vote changed."""
    cycle, previous = rounds[-1], first
    for n in rounds[1:]:
        here = _by_persona(votes, n).get(name)
        if here is not None:
            cycle = n if here.option_id != previous else cycle
            previous = here.option_id
    reply = replies.get((name, cycle))
    because = reply.change_reason.strip() if reply is not None else ""
    flagged = reply is not None and reply.conformity_flag
    return outputs.PositionMove(persona=name, from_option=first, to_option=final, cycle=cycle, because=because,
                                conformity=flagged)


def debate_effect(session: ConversationSession) -> outputs.DebateEffect | None:
    """The earlier vote against the final vote (None when nobody voted). The earlier vote is the first one (the
    independent cycle's, with no votes when the moderator could place nobody); after a revisited question was
    answered, the vote the answer rested on before (the re-vote is what changed). Whether cycles followed it is read
    off the cycles run, not the votes: a cycle in which nobody named an option still ran (``no_new_vote``)."""
    votes = session.votes
    if not votes or not session.options:
        return None
    # the first vote is the independent cycle's, placed by the options call — even when it placed nobody (then it
    # has no votes, and the cycles after it still ran: never "no debate followed")
    first_vote = min((x.cycle for x in session.responses if x.cycle >= 1), default=min(v.cycle for v in votes))
    revisit = session.open_revisit if session.open_revisit is not None and session.open_revisit.answer else None
    after = revisit.after_cycle if revisit is not None else first_vote
    if revisit is not None and not any(v.cycle <= after for v in votes):  # nobody voted before the revisit
        revisit, after = None, first_vote  # compare with the first vote
    base = max((v.cycle for v in votes if v.cycle <= after), default=after)
    rounds = [base, *sorted({v.cycle for v in votes if v.cycle > after})]
    first, final = _by_persona(votes, base), _by_persona(votes, rounds[-1])
    first_tally = tally_votes(session.options, list(first.values()))
    final_tally = tally_votes(session.options, list(final.values()))
    replies = {(x.persona, x.cycle): x for x in session.responses if not x.abstained}
    flags = sum(1 for x in session.responses if x.cycle > after and x.conformity_flag and not x.abstained)
    cycles_after = max(0, session.debate_cycles - after)
    # a head-count tie has no winner here, even one its voters' confidence puts ahead: "C won the final one" of
    # "A 1 · C 1" was said of a tie, and a tie that stood but leaned the other way read as overturned
    first_winner, final_winner = (None if x.consensus == "tie" else x.winner for x in (first_tally, final_tally))
    # cycles that ran after the final vote (their calls spent) and were dropped, no reply in them usable; one whose
    # number a concluded cycle took again came before that cycle's vote
    unusable = sum(1 for c in session.unusable_cycles if c > session.debate_cycles)
    verdict = ("unusable" if not cycles_after and unusable
               else "no_debate" if not cycles_after
               else "no_new_vote" if len(rounds) == 1
               else "confirmed" if first_winner == final_winner  # both None: the earlier tie stood
               else "overturned")
    moves = []
    for p in session.personas:
        was = first[p.name].option_id if p.name in first else None
        now = final[p.name].option_id if p.name in final else None
        if was != now and now is not None:
            moves.append(_move(p.name, rounds, votes, replies, was, now))
    dropped = [p.name for p in session.personas if p.name in first and p.name not in final]
    between = [_by_persona(votes, n) for n in rounds[1:-1]]
    returned = [p.name for p in session.personas if p.name in first and p.name in final
                and final[p.name].option_id == first[p.name].option_id
                and any(p.name in r and r[p.name].option_id != first[p.name].option_id for r in between)]
    return outputs.DebateEffect(verdict=verdict, first_winner=first_winner, final_winner=final_winner,
                                first_counts=first_tally.counts, final_counts=final_tally.counts, moves=moves,
                                dropped=dropped if len(rounds) > 1 else [], returned=returned,
                                conformity_flags=flags, since="revisit" if revisit is not None else "first_vote",
                                cycles_after=cycles_after, unusable_cycles=unusable)
