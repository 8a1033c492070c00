"""The final synthesis: one consolidated answer from the final positions and the vote.

The chair model writes the recommendation, agreements, conflicts, risks and ordered next steps, and says which of
the session's assumptions the recommendation hinges on (``hinges``); if it fails, the answer is consolidated from
the personas' own replies. Either way the assumptions, the dissent (always including the Devil's Advocate's), the
Devil's Advocate's counterpoints among the risks (seed 000), the vote and what the debate changed come from the
session itself, never from a model. The chair's reply streams to the observer as it comes
(``Turn.answer_text``), so the answer's first words reach the user before the call ends.
"""

from __future__ import annotations

from council.personas.contract import PersonaContract
from council.session.calls import CallSpec, ProviderPicker, call_structured
from council.session.debate import latest_responses, votes_of
from council.session.entities import ConversationSession, new_id
from council.session.hinges import hinge_schema, hinges_of
from council.session.outputs import CouncilSynthesis, PersonaResponse, SynthesisReply, reply_schema
from council.session.prompts import DEPTH_BULLETS, DEPTH_TOKENS, synthesis_messages
from council.session.runtime import Turn
from council.session.shift import debate_effect
from council.session.vote_round import final_round
from council.session.voting import describe_tally
from council.words import speaking, t


def _dedupe(items: list[str], limit: int) -> list[str]:
    out: list[str] = []
    for item in items:
        key = item.strip().lower().rstrip(".")
        if key and key not in (o.lower().rstrip(".") for o in out):
            out.append(item.strip())
        if len(out) >= limit:
            break
    return out


def dissent(session: ConversationSession, contracts: dict[str, PersonaContract]) -> list[str]:
    """Voters against the winner, and the Devil's Advocate's counterpoints whatever they voted: one entry each."""
    with speaking(session.settings.language):
        return _dissent(session, contracts)


def _dissent(session: ConversationSession, contracts: dict[str, PersonaContract]) -> list[str]:
    entries: dict[str, str] = {}
    tally = session.tally
    final_votes = votes_of(session, final_round(session)) if tally else []
    if tally and tally.winner:
        for v in final_votes:
            if v.option_id != tally.winner:
                entries[v.persona] = t("synthesis.voted", persona=v.persona, option=v.option_id, why=v.rationale)
    for resp in latest_responses(session):
        contract = contracts.get(resp.persona)
        if contract is not None and contract.always_include and not resp.abstained:
            risks = "; ".join(resp.risks[:3])
            tail = t("synthesis.risks", risks=risks) if risks else ""
            if resp.persona in entries:  # voted against the winner: its counterpoints join that entry
                entries[resp.persona] = entries[resp.persona].rstrip(".") + "." + tail
            else:
                entries[resp.persona] = t("synthesis.counterpoints", persona=resp.persona, position=resp.position,
                                          risks=tail)
    return list(entries.values())


def _key(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def with_counterpoints(session: ConversationSession, risks: list[str],
                       contracts: dict[str, PersonaContract]) -> list[str]:
    """The risks and trade-offs with every always-included persona's (the Devil's Advocate's) counterpoints from
    its last usable reply added, each once (seed 000: they reach ``risks_tradeoffs`` on every surface)."""
    _, hi = DEPTH_BULLETS[session.settings.depth]
    out = list(risks)
    known = {_key(x) for x in out}
    for name, contract in contracts.items():
        if not contract.always_include:
            continue
        usable = [x for x in session.responses if x.persona == name and not x.abstained]
        for risk in (max(usable, key=lambda x: x.cycle).risks[:hi] if usable else []):
            if _key(risk) and _key(risk) not in known:
                known.add(_key(risk))
                out.append(risk.strip())
    return out


def consolidate(session: ConversationSession, latest: list[PersonaResponse]) -> SynthesisReply:
    """A synthesis built from the replies alone (used when the chair model fails)."""
    with speaking(session.settings.language):
        return _consolidate(session, latest)


def _consolidate(session: ConversationSession, latest: list[PersonaResponse]) -> SynthesisReply:
    _, hi = DEPTH_BULLETS[session.settings.depth]
    active = [x for x in latest if not x.abstained]
    tally = session.tally
    winners = {v.persona for v in votes_of(session, final_round(session)) if tally and v.option_id == tally.winner}
    lead = [x for x in active if x.persona in winners] or active
    label = next((o.label for o in session.options if tally and o.id == tally.winner), None)
    recommendation = label or (lead[0].position if lead else t("synthesis.no_recommendation"))
    return SynthesisReply(
        recommendation=recommendation,
        agreements=_dedupe([x.position for x in lead], 5),
        conflicts=_dedupe([f"{x.persona}: {x.position}" for x in active if x not in lead], 5),
        risks_tradeoffs=_dedupe([risk for x in active for risk in x.risks], 8),
        next_steps=_dedupe([step for x in lead for step in x.next_steps], hi) or [t("synthesis.revisit")],
        notes=[t("synthesis.no_chair")],
    )


async def synthesize(rt: Turn, pick: ProviderPicker,
                     contracts: dict[str, PersonaContract]) -> CouncilSynthesis:
    s = rt.session
    latest = latest_responses(s)
    outcome_line = describe_tally(s.tally) if s.tally else "no vote"
    _, hi = DEPTH_BULLETS[s.settings.depth]
    few = {"maxItems": min(hi, 5)}
    schema = hinge_schema(reply_schema(SynthesisReply, {
        "next_steps": {"maxItems": hi}, "agreements": few, "conflicts": few, "risks_tradeoffs": {"maxItems": hi},
        "notes": {"maxItems": 3}}), s)
    rt.note("chair")
    stream_id = new_id()

    async def on_delta(chunk: str) -> None:
        rt.answer_text(stream_id, chunk)

    outcome = await call_structured(rt, pick, CallSpec(
        role="synthesizer", messages=synthesis_messages(s, schema, outcome_line, latest),
        reply_model=SynthesisReply, schema=schema, max_tokens=DEPTH_TOKENS[s.settings.depth], temperature=0.3),
        on_delta)
    reply = outcome.reply or consolidate(s, latest)
    notes = list(reply.notes)
    abstained = [x.persona for x in latest if x.abstained]
    with speaking(s.settings.language):
        if abstained:
            notes.append(t("synthesis.abstained", names=", ".join(abstained)))
    return CouncilSynthesis(
        recommendation=reply.recommendation.strip(),
        agreements=reply.agreements, conflicts=reply.conflicts,
        risks_tradeoffs=with_counterpoints(s, reply.risks_tradeoffs, contracts),
        next_steps=reply.next_steps, notes=notes, dissent=dissent(s, contracts),
        assumptions=[a.assumption for a in s.assumption_log],
        source="model" if outcome.reply is not None else "consolidated",
        hinges=hinges_of(s, reply.hinges), debate=debate_effect(s),
    )
