"""Seed 002: a discussion needs at least two personas, so a council of one answers without debating itself — no
cycles, no options, no vote of one against nobody — and its answer is the council's answer."""

from __future__ import annotations

from council.present.transcript import transcript
from council.protocol.methods import SessionOptions, TurnParams
from council.session.entities import MessageType
from council.session.entities import SessionStatus as S
from council.session.reducer import replay

PROBLEM = "Should we split our monolith into services this quarter?"


async def test_one_persona_answers_without_a_debate(make_service):
    h = make_service()
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(
        personas=["Security Expert"], clarify=False)))
    rt = h.runtime(res.session_id)
    s = rt.session
    assert res.status is S.COMPLETED and res.final_answer
    assert s.debate_cycles == 0 and not s.discussions and not s.options and not s.votes and s.tally is None
    assert [(x.persona, x.cycle) for x in s.responses] == [("Security Expert", 0)]
    assert [t.message_type for t in s.message_turns] == [MessageType.CONCLUSION]
    kinds = {e["type"] for e in h.of(res.session_id)}
    assert not kinds & {"cycle.started", "cycle.completed", "options.proposed", "vote.cast", "votes.tallied"}
    assert "persona.completed" in kinds and "final.answer" in kinds
    roles = {role: use.calls for role, use in s.metadata.models.items()}
    assert roles == {"Security Expert": 1, "synthesizer": 1}  # the answer and the chair: nothing else
    assert "**Vote:**" not in res.final_answer and "a council of one does not debate" in res.final_answer
    assert replay(rt.journal).model_dump() == s.model_dump()
    text = transcript(s)
    assert "## The answer of a council of one" in text and "#### Security Expert" in text
    assert s.responses[0].position in text and "## Cycle" not in text


async def test_a_council_of_one_states_what_it_will_spend(make_service):
    h = make_service()
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=["Security Expert"])))
    s = h.runtime(res.session_id).session
    plan = s.call_plans[0]
    assert plan.planned == 3 and plan.by_model == {"scripted:scripted": 3}  # clarifier, answer, chair
