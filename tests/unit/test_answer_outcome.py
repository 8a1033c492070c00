"""What the answer rests on (issue 20): whether the debate confirmed or overturned the first vote, who moved and the
argument that moved them, conformity counted; and the assumptions the recommendation hinges on, from the chair's
structured reply, checked against the session's own assumptions and ordered most critical first."""

from __future__ import annotations

import pytest
from unit_helpers import Builder, first_vote_rules, persona_reply, rule

from council.present.transcript import transcript
from council.protocol.methods import SessionOptions, TurnCommand, TurnParams
from council.session.state.entities import SessionSettings
from council.session.state.outputs import HingeDraft
from council.session.steps.hinges import hinges_of

ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
TRIO = [ARCH, DEV, DEVIL]
PROBLEM = "Should we split our monolith into services this quarter?"
ARGUMENT = "Advisor C's point that the on-call load doubles, which our team of four cannot carry"


def first_votes() -> list[dict]:
    """Cycle 1: the architect and the developer prefer A, the Devil's Advocate B (A leads 2–1, no consensus)."""
    return first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.6), DEVIL: ("B", 0.9)})


def cycle_two(arch: str, dev: str, **dev_kw) -> list[dict]:
    moved = {"changed": True, "change_reason": ARGUMENT} if arch != "A" else {}
    return [rule("PersonaReply", persona_reply(2, option=arch, who=ARCH, **moved), purpose=ARCH, cycle=2),
            rule("PersonaReply", persona_reply(2, option=dev, who=DEV, **dev_kw), purpose=DEV, cycle=2),
            rule("PersonaReply", persona_reply(2, option="B", who=DEVIL), purpose=DEVIL, cycle=2)]


async def debate(make_service, rules: list[dict]):
    h = make_service({"rules": rules}, SessionSettings(min_cycles=2, max_cycles=2))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    return res, h.runtime(res.session_id).session


async def test_a_debate_that_overturns_the_first_vote_is_reported_as_such_with_who_moved_and_why(make_service):
    # the architect moves to B naming an argument; the developer follows without one (possible conformity)
    res, s = await debate(make_service, first_votes() + cycle_two("B", "B", changed=True))
    effect = s.synthesis.debate
    assert effect.verdict == "overturned" and (effect.first_winner, effect.final_winner) == ("A", "B")
    assert effect.first_counts == {"A": 2, "B": 1} and effect.final_counts == {"A": 0, "B": 3}
    assert [(m.persona, m.from_option, m.to_option, m.cycle, m.because, m.conformity) for m in effect.moves] == [
        (ARCH, "A", "B", 2, ARGUMENT, False), (DEV, "A", "B", 2, "", True)]
    assert effect.conformity_flags == 1
    answer = res.final_answer
    assert "### What the debate changed" in answer
    assert ("The debate overturned the first vote: **A · Staged approach** led it, **B · Wait** won the final one "
            "(A 2 · B 1 → B 3).") in answer
    assert f"- {ARCH} moved from A to B: {ARGUMENT}." in answer
    assert f"- {DEV} moved from A to B without naming an argument ⚠️ possible conformity." in answer
    assert "_1 change of position flagged as possible conformity" in answer


async def test_a_debate_that_confirms_the_first_vote_is_reported_as_such(make_service):
    res, s = await debate(make_service, first_votes() + cycle_two("A", "A"))
    effect = s.synthesis.debate
    assert effect.verdict == "confirmed" and effect.first_winner == effect.final_winner == "A"
    assert effect.moves == [] and effect.conformity_flags == 0
    assert ("The debate confirmed the first vote: **A · Staged approach** won both (A 2 · B 1 → A 2 · B 1)."
            in res.final_answer)
    assert "Nobody changed their vote." in res.final_answer


async def test_a_first_vote_that_settles_it_is_no_debate(make_service):
    h = make_service({"rules": first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.9), DEVIL: ("A", 0.9)})},
                     SessionSettings(min_cycles=1, max_cycles=3))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    assert s.debate_cycles == 1 and s.synthesis.debate.verdict == "no_debate"
    assert "No debate cycle followed the first vote (A 3), so the first vote is the final one." in res.final_answer
    # the footer agrees (it said "after 1 debate cycle", issue 31)
    assert "after the first vote (no debate cycle followed it)._" in res.final_answer
    assert "1 debate cycle" not in res.final_answer


HINGES = [  # the chair's judgement in its own order: the less critical first
    {"assumption": 2, "recommendation_depends": True, "criticality": "medium", "if_false": "Split next year."},
    {"assumption": 1, "recommendation_depends": True, "criticality": "high", "if_false": "Cut costs first."},
]
SYNTHESIS = {"recommendation": "Take the staged approach.", "agreements": [], "conflicts": [],
             "risks_tradeoffs": ["Delivery could stall."], "next_steps": ["Pick a first slice."], "notes": [],
             "hinges": HINGES}


async def skipped_everything(make_service, synthesis: dict | None = None):
    rules = [rule("SynthesisReply", synthesis)] if synthesis else []
    h = make_service({"rules": rules}, SessionSettings(min_cycles=1, max_cycles=1))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=TRIO)))
    res = await h.service.turn(TurnParams(session_id=res.session_id, text="", command=TurnCommand.SKIP_ALL))
    return h, res, h.runtime(res.session_id).session


async def test_the_answer_marks_what_it_hinges_on_only_real_assumptions_most_critical_first(make_service):
    h, res, s = await skipped_everything(make_service, SYNTHESIS)
    goal, timeline = s.assumption_log  # the scripted clarifier's two questions, both skipped
    assert [(x.assumption_id, x.question_id, x.criticality, x.if_false) for x in s.synthesis.hinges] == [
        (goal.assumption_id, goal.related_question_id, "high", "Cut costs first."),
        (timeline.assumption_id, timeline.related_question_id, "medium", "Split next year.")]
    chair = next(c for c in next(iter(h.service.hub._cache.values())).calls
                 if c.json_schema["title"] == "SynthesisReply")
    schema = chair.json_schema
    assert schema["properties"]["hinges"]["maxItems"] == 2
    hinge = schema["properties"]["hinges"]["items"]  # the asked schema is inlined (its texts capped, issue 34)
    assert hinge["properties"]["assumption"] == {"type": "integer", "minimum": 1, "maximum": 2}
    assert f"1. {goal.assumption}\n2. {timeline.assumption}" in chair.messages[-1].content
    answer = res.final_answer
    assert answer.index("### What the answer hinges on") < answer.index("### Risks and trade-offs")
    goal_q = s.question(goal.related_question_id).question
    # the goal's hinge is the engine's (another likely answer favours another option), the chair's words refine it;
    # the timeline's alternative favours the recommended option: only the chair's judgement makes it a hinge
    assert (f"1. **{goal.assumption}** _(assumed: you skipped “{goal_q}”)_ If instead *Cut costs*, the council "
            "would lean to **B · Wait**. The chair: Cut costs first. _(high)_\n"
            f"2. **{timeline.assumption}** If not, the council would recommend: Split next year. _(medium)_\n"
            ) in answer
    assert [(r.question_id, r.label) for r in res.revisit] == [
        (goal.related_question_id, f"Revisit: {goal.assumption}"),
        (timeline.related_question_id, f"Revisit: {timeline.assumption}")]


def test_only_real_assumptions_the_recommendation_depends_on_are_kept_once_each():
    b = Builder(SessionSettings(), ("Alpha",))
    b.clarifying()
    b.ask("q1-1")
    b.skip("q1-1")
    b.skip("q1-2")  # skip all: the planned question is skipped too
    drafts = [HingeDraft(assumption=n, recommendation_depends=d, criticality=c, if_false=f) for n, d, c, f in (
        (7, True, "high", "No such assumption."), (0, True, "high", "Nor this one."),
        (2, False, "high", "It does not depend on it."), (2, True, "low", "   "),
        (1, True, "low", "Hire first."), (1, True, "high", "Said twice."), (2, True, "medium", "Keep one team."))]
    kept = hinges_of(b.s, drafts)
    assert [(h.assumption_id, h.question_id, h.criticality, h.if_false) for h in kept] == [
        ("as-q1-2", "q1-2", "medium", "Keep one team."), ("as-q1-1", "q1-1", "low", "Hire first.")]


async def test_without_assumptions_the_chair_is_not_asked_and_nothing_is_marked(make_service):
    h = make_service({"rules": [rule("SynthesisReply", SYNTHESIS)]}, SessionSettings(min_cycles=1, max_cycles=1))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    chair = next(c for c in next(iter(h.service.hub._cache.values())).calls
                 if c.json_schema["title"] == "SynthesisReply")
    assert "hinges" not in chair.json_schema["properties"] and "$defs" not in chair.json_schema
    assert s.synthesis.hinges == [] and res.revisit == []  # the hinges a chair sends anyway name nothing real
    assert "hinges on" not in res.final_answer


# --- issue 31: the user's answers, and the hinges the engine knows of ------------------------------------------------
GOAL = "What is the main goal behind this request (round 1)?"
TIMELINE = "The timeline is this quarter."


async def answered_then_skipped(make_service, rules: list[dict]):
    """The goal answered "Reduce risk" (choice 3: it favours the staged approach, which wins), the timeline
    skipped; the scripted council votes A 2 · B 1."""
    h = make_service({"rules": rules}, SessionSettings(min_cycles=1, max_cycles=1))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=TRIO)))
    res = await h.service.turn(TurnParams(session_id=res.session_id, text="3"))
    res = await h.service.turn(TurnParams(session_id=res.session_id, text="", command=TurnCommand.SKIP))
    return h, res, h.runtime(res.session_id).session


ENGINE_HINGE = (f"1. You answered “{GOAL}”: **Reduce risk**. If instead *Cut costs*, the council would lean to "
                "**B · Wait**. If instead *Ship faster*, the council would lean to **Split now**. _(high)_\n")


@pytest.mark.parametrize("chair", [rule("SynthesisReply", {**SYNTHESIS, "hinges": []}),
                                   rule("SynthesisReply", error="client")], ids=["chair_names_none", "chair_failed"])
async def test_the_engine_states_what_the_answer_hinges_on_whatever_the_chair_writes(make_service, chair):
    """The hinges appeared only when the chair model wrote them (never, in the English, Russian and agent runs):
    the clarifier's plan says which option each likely answer favours, so the engine states the hinge itself."""
    _h, res, s = await answered_then_skipped(make_service, [chair])
    assert s.tally.winner == "A"
    [hinge] = s.synthesis.hinges  # the timeline's other answer ("This year") favours A, the winner: no hinge
    assert (hinge.basis, hinge.question, hinge.assumption, hinge.criticality) == ("answered", GOAL, "Reduce risk",
                                                                                 "high")
    assert [(a.answer, a.favours, a.option_id) for a in hinge.alternatives] == [
        ("Cut costs", "Wait", "B"), ("Ship faster", "Split now", None)]
    assert f"### What the answer hinges on\n\n{ENGINE_HINGE}" in res.final_answer
    assert "revisit" not in res.final_answer.split("hinges on", 1)[1].split("###", 1)[0].lower()
    assert res.revisit == []  # an answered question is not offered again


async def test_the_answer_lists_what_the_user_told_the_council_beside_what_it_assumed(make_service):
    """Issue 31: "Under 10 engineers" appeared nowhere in the answer; only the skipped question's assumption did."""
    _h, res, s = await answered_then_skipped(make_service, [])
    assert [(a.question, a.answer) for a in s.synthesis.user_answers] == [(GOAL, "Reduce risk")]
    told = f"### What you told the council\n\n- {GOAL} → **Reduce risk**\n\n"
    assumed = f"### Assumptions the council made\n\n- {TIMELINE}\n"
    assert told + assumed in res.final_answer
    assert told + assumed in transcript(s)


async def test_a_recommendation_without_a_word_is_replaced_by_the_winning_option(make_service):
    """The embedded model under its grammar once wrote the recommendation "}, {" (scripts/ask, the README's quick
    start): the answer's headline was punctuation. A recommendation with no letter or digit is replaced by the
    winning option's label, as when the chair fails; the chair's other sections are kept."""
    h = make_service({"rules": [rule("SynthesisReply", {**SYNTHESIS, "recommendation": "}, {"})]},
                     SessionSettings(min_cycles=1, max_cycles=1))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    winner = next(o.label for o in s.options if o.id == s.tally.winner)
    assert s.synthesis.recommendation == winner and s.synthesis.source == "model"
    assert s.synthesis.next_steps == ["Pick a first slice."]
    assert "}, {" not in res.final_answer and winner in res.final_answer
