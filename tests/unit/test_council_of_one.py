"""Seed 002: a discussion needs at least two personas, so a council of one answers without debating itself — no
cycles, no options, no vote of one against nobody — and its answer is the council's answer."""

from __future__ import annotations

from council.present.transcript import transcript
from council.protocol.consult import ConsultPlanParams
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import MessageType
from council.session.state.entities import SessionStatus as S
from council.session.state.reducer import replay
from council.session.steps.engine import NewSession

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


BILLING = "Should we move billing to an event-driven design?"  # routed to Software Architect, Senior Developer, DA


async def test_a_council_of_one_says_it_answers_alone_not_who_always_sits(make_service):
    """Issue 19 audit: a budget that left one persona, or one persona asked for, still read "Devil's Advocate always
    sits on the council" (and "up to 3 debate cycles", "fewer debate cycles"): each says what happens instead."""
    h = make_service()
    engine, service = h.service.engine, h.service
    alone = "A council of one: Software Architect answers alone, without a debate."
    cut = engine.plan(NewSession(text=BILLING, max_model_calls=3))
    assert [p.name for p in cut.selection.personas] == ["Software Architect"]
    reason = cut.selection.reason
    assert "always sits" not in reason and reason.endswith(
        "To fit the budget of 3 model calls, Senior Developer and Devil's Advocate were left out. " + alone)
    assert "Devil's Advocate always sits on the council." in engine.plan(NewSession(text=BILLING)).selection.reason
    two = engine.plan(NewSession(text=BILLING, max_model_calls=5)).selection  # a cut that keeps the DA: it still sits
    assert two.reason.endswith("Senior Developer was left out. Devil's Advocate always sits on the council.")

    plan = await service.consult_plan(ConsultPlanParams(user_problem=BILLING, max_model_calls=3))
    assert "(standard depth, no debate)" in plan.markdown and "always sits" not in plan.markdown
    assert plan.budget_cut == ("to fit the budget of 3 model calls: one advisor, who answers alone without a debate "
                               "(from 3: Senior Developer and Devil's Advocate left out); no clarifying questions")
    named = await service.consult_plan(ConsultPlanParams(user_problem=BILLING, selected_personas=["Security Expert"]))
    assert named.council.reason == ("You requested Security Expert (routing skipped). A council of one: Security "
                                    "Expert answers alone, without a debate.")
    assert "debate cycle" not in named.markdown
    routed = engine.plan(NewSession(text=BILLING, max_personas=1)).selection  # routing's own council of one
    assert "always sits" not in routed.reason and routed.reason.endswith("answers alone, without a debate.")
