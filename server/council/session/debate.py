"""Debate cycles: every persona answers concurrently, seeing a digest of the others' previous positions.

``run_cycle`` runs one cycle and records it; ``resolve_cycle`` summarises it and says whether the council wants
to stop. Cycle 1 is independent (no persona sees another); later cycles show anonymised peers' positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio

from council.personas.contract import PersonaContract
from council.protocol.events import PersonaStarted
from council.session import records as r
from council.session.calls import CallSpec, ProviderPicker, call_structured
from council.session.entities import ConversationSession, CouncilDiscussion, CycleRef, MessageType
from council.session.live_render import LiveRenderer, limits_of
from council.session.outputs import PersonaReply, PersonaResponse, reply_schema
from council.session.parsing import ParseFailure
from council.session.prompts import DEPTH_BULLETS, persona_messages
from council.session.runtime import SessionRuntime
from council.session.streaming import OrderedStream


def persona_schema(session: ConversationSession, cycle: int = 2) -> dict:
    """The PersonaReply schema at the session's depth; cycle 1 (independent) has no position-change fields."""
    lo, hi = DEPTH_BULLETS[session.settings.depth]
    bullets = {"minItems": lo, "maxItems": hi}
    omit = ("changed_position", "change_reason") if cycle == 1 else ()
    return reply_schema(PersonaReply, {"summary": bullets, "advice": bullets, "next_steps": bullets,
                                       "risks": {"maxItems": 5}}, omit=omit)


def latest_responses(session: ConversationSession, cycle: int | None = None) -> list[PersonaResponse]:
    """Responses of ``cycle`` (default: the last cycle), in persona order."""
    cycle = session.debate_cycles if cycle is None else cycle
    return [resp for resp in session.responses if resp.cycle == cycle]


def _check_reply(persona: PersonaContract):
    def check(reply: PersonaReply) -> None:
        missing = [f for f in ("summary", "advice", "next_steps") if not getattr(reply, f)]
        if missing:
            raise ParseFailure(f"these lists must not be empty: {', '.join(missing)}")
        if persona.always_include and not reply.risks:
            raise ParseFailure("as the Devil's Advocate you must list the risks and counterpoints in 'risks'")
    return check


async def run_cycle(rt: SessionRuntime, pick: ProviderPicker, contracts: dict[str, PersonaContract],
                    cycle: int) -> list[PersonaResponse]:
    s = rt.session
    previous = latest_responses(s, cycle - 1) if cycle > 1 else []
    personas = s.personas
    rt.record(r.CycleStarted(at=rt.clock(), discussion=CouncilDiscussion(
        session_id=s.session_id, cycle_number=cycle, participating_personas=personas,
        exchange_starts=rt.clock(), topic=s.request_text[:200])))
    order = [p.name for p in personas]
    stream = OrderedStream(rt, order, cycle)
    schema = persona_schema(s, cycle)
    for p in personas:
        provider = pick(p.name)
        rt.emit(PersonaStarted, persona=p.name, cycle=cycle, provider=provider.id, model=provider.model)

    async def one(name: str) -> None:
        contract = contracts[name]
        participant = s.participant(name)
        own = next((x for x in previous if x.persona == name), None)
        peers = [x for x in previous if x.persona != name]
        renderer = LiveRenderer(limits_of(schema))

        async def on_delta(chunk: str) -> None:
            stream.delta(name, renderer.feed(chunk))

        spec = CallSpec(role=name, messages=persona_messages(contract, s, schema, cycle, peers, own),
                        reply_model=PersonaReply, schema=schema, max_tokens=1400, cycle=cycle,
                        check=_check_reply(contract))
        outcome = await call_structured(rt, pick, spec, on_delta)
        if outcome.reply is not None:
            stream.delta(name, renderer.finish(outcome.reply.model_dump()))
            reply = outcome.reply.model_dump()
            flag = cycle > 1 and outcome.reply.changed_position and not outcome.reply.change_reason.strip()
            response = PersonaResponse(**reply, persona=name, cycle=cycle, conformity_flag=flag,
                                       note="repaired after one retry" if outcome.repaired else None)
            content = response.position
        else:
            note = f"{name} abstains: {outcome.note}"
            stream.delta(name, f"_{note}_\n\n")
            response = PersonaResponse(persona=name, cycle=cycle, position="(abstained)", confidence="low",
                                       confidence_rationale="no usable reply", continue_debate=False,
                                       abstained=True, note=note)
            content = note

        def commit() -> None:
            assert participant is not None
            turn = rt.turn(participant, MessageType.DISCUSSION, content, cycle=CycleRef(cycle_type="debate",
                           number=cycle), metadata={"abstained": response.abstained})
            rt.record(r.PersonaSpoke(at=rt.clock(), response=response.model_copy(update={"turn_id": turn.turn_id}),
                                     turn=turn))

        stream.finish(name, commit)

    async with anyio.create_task_group() as tg:
        for name in order:
            tg.start_soon(one, name)
    return latest_responses(rt.session, cycle)


@dataclass
class CycleResolution:
    summary: str
    stop: bool
    reason: str
    all_failed: bool = False


def resolve_cycle(session: ConversationSession, cycle: int) -> CycleResolution:
    """Summarise a finished cycle and decide whether the debate should stop (before the cycle limit)."""
    responses = latest_responses(session, cycle)
    active = [x for x in responses if not x.abstained]
    abstained = [x.persona for x in responses if x.abstained]
    parts = [f"Cycle {cycle}: {len(active)} of {len(responses)} advisors gave a position"]
    if abstained:
        parts.append(f"abstained: {', '.join(abstained)}")
    changed = [x for x in active if x.changed_position]
    for x in changed:
        why = x.change_reason.strip() or "no new argument named — flagged as conformity"
        parts.append(f"{x.persona} changed position ({why})")
    if cycle > 1 and active and not changed:
        parts.append("everyone held their position")
    stoppers = [x for x in active if not x.continue_debate]
    parts.append(f"{len(stoppers)} of {len(active)} see no need to continue")
    summary = "; ".join(parts) + "."
    if not active:
        return CycleResolution(summary, stop=True, reason="every advisor failed", all_failed=True)
    if cycle >= session.settings.min_cycles and 3 * len(stoppers) >= 2 * len(active):
        return CycleResolution(summary, stop=True, reason="at least two thirds of the advisors asked to stop")
    return CycleResolution(summary, stop=False, reason="")
