"""The first vote folded into the options call (issue 11): cycle 1 stays independent, the moderator's options call
places each recommendation under one option, and only votes it could place are tallied — no extra model stage."""

from __future__ import annotations

import pytest
from unit_helpers import first_vote_rules, persona_reply, rule

from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import SessionSettings
from council.session.steps.vote_round import placed

ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
TRIO = [ARCH, DEV, DEVIL]
OPTIONS = [{"label": "Staged approach", "description": "Proceed in small steps."},
           {"label": "Wait", "description": "Postpone."}]
NO_CHOICE = rule("OptionChoice", "garbage")  # an unplaced advisor asked for its option gives no usable answer


async def start(h, **opts):
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?",
                                          options=SessionOptions(clarify=False, personas=TRIO, **opts)))
    return res, h.runtime(res.session_id).session


def calls(h):
    return next(iter(h.service.hub._cache.values())).calls


def unanimous_but(devil_option: str) -> list[dict]:
    return first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: (devil_option, 0.7)})


def test_placed_needs_exactly_one_option():
    class R:
        def __init__(self, persona: str) -> None:
            self.persona = persona

    latest = [R("a"), R("b"), R("c"), R("d")]
    assert placed(latest, [[1, 2, 2], [2, 3], [9]]) == {"a": 0, "c": 1}  # b under two options, d under none


async def test_cycle_one_is_independent_then_one_options_call_carries_the_first_votes(make_service):
    h = make_service({"rules": unanimous_but("B")}, SessionSettings(min_cycles=1, max_cycles=1))
    res, s = await start(h)
    kinds = [c.json_schema["title"] for c in calls(h)]
    assert kinds == ["PersonaReply"] * 3 + ["OptionsReply", "SynthesisReply"]  # three stages, no vote calls
    for c in calls(h)[:3]:
        prompt = c.messages[-1].content
        assert "Advisor" not in prompt and "options on the table" not in prompt  # nobody sees anybody
        assert "option_id" not in c.json_schema["properties"] and "vote_confidence" in c.json_schema["properties"]
    moderator = calls(h)[3].messages[-1].content
    assert "- Advisor 1 [medium, 0.9]: Software Architect prefers option A" in moderator
    assert [(v.persona, v.option_id, v.confidence, v.cycle) for v in s.votes] == [
        (ARCH, "A", 0.9, 1), (DEV, "A", 0.8, 1), (DEVIL, "B", 0.7, 1)]
    assert s.votes[0].rationale == s.votes[0].conclusion == "Software Architect prefers option A in cycle 1."
    assert s.tally.counts == {"A": 2, "B": 1} and s.tally.voters == 3 and res.status.value == "completed"


async def test_an_unplaced_recommendation_abstains_and_is_not_guessed(make_service):
    unplaceable = {"options": [{**OPTIONS[0], "supporters": [1, 3]}, {**OPTIONS[1], "supporters": [3]}]}
    h = make_service({"rules": [*unanimous_but("B"), rule("OptionsReply", unplaceable)]},
                     SessionSettings(min_cycles=1, max_cycles=1))
    res, s = await start(h)
    sid = res.session_id
    # the developer (2) is under no option and the Devil's Advocate (3) under both: neither votes
    assert [(v.persona, v.option_id) for v in s.votes] == [(ARCH, "A")]
    assert s.tally.voters == 1 and s.tally.counts == {"A": 1, "B": 0}
    assert s.tally.abstentions == [DEV, DEVIL]
    notes = [e["message"] for e in h.of(sid, "progress") if "could not match" in e["message"]]
    assert notes == ["The moderator could not match the recommendation of Senior Developer and Devil's Advocate to "
                     "one option: no vote from them this round."]


async def test_unplaced_personas_vote_again_in_the_next_cycle(make_service):
    """Nobody placed: no first votes, so nobody can back a placed recommendation in cycle 2 (it ran beside the
    options call); cycle 3 votes on the options."""
    nobody = {"options": [{**o, "supporters": []} for o in OPTIONS]}
    h = make_service({"rules": [rule("OptionsReply", nobody), NO_CHOICE]}, SessionSettings(min_cycles=3, max_cycles=3))
    _res, s = await start(h)
    assert {v.cycle for v in s.votes} == {3} and len(s.votes) == 3  # no first votes; cycle 3 carries real ones
    assert s.discussions[0].convergence.agreement == 0.0 and s.discussions[1].convergence.agreement == 0.0


async def test_a_persona_left_unplaced_votes_in_cycle_two_by_backing_a_placed_peer(make_service):
    """The moderator places the architect and the Devil's Advocate but not the developer, who backs the architect's
    recommendation in cycle 2 (beside the options call): its vote is the architect's option."""
    some = {"options": [{**OPTIONS[0], "supporters": [1]}, {**OPTIONS[1], "supporters": [3]}]}
    h = make_service({"rules": [rule("OptionsReply", some),
                                rule("PersonaReply", {**persona_reply(2, who=DEV), "backs": "A"}, purpose=DEV,
                                     cycle=2)]}, SessionSettings(min_cycles=2, max_cycles=2))
    _res, s = await start(h)
    assert [(v.persona, v.option_id) for v in s.votes if v.cycle == 1] == [(ARCH, "A"), (DEVIL, "B")]
    dev = next(v for v in s.votes if v.cycle == 2 and v.persona == DEV)
    assert dev.option_id == "A"
    response = next(x for x in s.responses if x.cycle == 2 and x.persona == DEV)
    assert response.backs == "A" and response.option_id == "A" and not response.changed_position


@pytest.mark.parametrize("speculate", ["never", "always"])
async def test_a_first_vote_the_moderator_could_place_for_one_advisor_of_three_does_not_end_the_debate(
        make_service, speculate):
    """Only the architect is placed: its vote, sure and asking to stop, was read as the council settled (one voter,
    every voter asking to stop), and the answer said "a majority for A" on one vote of three. The next cycle runs:
    after the options call each advisor votes on them; beside it (speculating) the two unplaced advisors back their
    own unplaced recommendations, so A stays one vote of three — which leads, and is no majority."""
    one = {"options": [{**OPTIONS[0], "supporters": [1]}, {**OPTIONS[1], "supporters": []}]}
    h = make_service({"rules": [*first_vote_rules(continue_debate=False, **{ARCH: ("A", 0.9), DEV: ("A", 0.8),
                                                                            DEVIL: ("B", 0.7)}),
                                rule("OptionsReply", one), NO_CHOICE]}, SessionSettings(min_cycles=1, max_cycles=2))
    res, s = await start(h, speculate=speculate)
    assert res.status.value == "completed" and s.debate_cycles == 2
    first = s.discussions[0]
    assert first.stop_reason is None and first.convergence.status == "refining"
    assert (first.convergence.voters, first.convergence.seats) == (1, 3)
    assert first.convergence.stop_requests == round(1 / 3, 4)
    assert "Only 1 of 3 advisors had a vote that could be read: too few to speak for the council." in \
        first.resolution_summary
    voters = {v.persona for v in s.votes if v.cycle == 2}
    if speculate == "never":
        assert voters == set(TRIO) and s.tally.counts == {"A": 2, "B": 1} and s.tally.consensus == "majority"
    else:
        assert voters == {ARCH} and s.tally.abstentions == [DEV, DEVIL]
        assert s.tally.winner == "A" and s.tally.consensus == "none"
        assert "**Vote:** no majority; **A · Staged approach** leads" in s.final_answer


async def test_nobody_placed_and_no_further_cycle_completes_without_votes(make_service):
    nobody = {"options": [{**o, "supporters": []} for o in OPTIONS]}
    h = make_service({"rules": [rule("OptionsReply", nobody)]}, SessionSettings(min_cycles=1, max_cycles=1))
    res, s = await start(h)
    assert res.status.value == "completed" and s.votes == []
    assert s.tally.voters == 0 and s.tally.winner is None and s.tally.abstentions == TRIO


async def test_options_failure_falls_back_to_the_positions_and_their_own_votes(make_service):
    h = make_service({"rules": [
        rule("PersonaReply", persona_reply(1, position="Split now.", vote_confidence=0.6), purpose=ARCH, cycle=1),
        rule("PersonaReply", persona_reply(1, position="split now.", vote_confidence=0.7), purpose=DEV, cycle=1),
        rule("PersonaReply", persona_reply(1, position="Wait a quarter.", vote_confidence=0.8), purpose=DEVIL,
             cycle=1),
        rule("OptionsReply", "no options from me"),
    ]}, SessionSettings(min_cycles=1, max_cycles=1))
    _res, s = await start(h)
    assert [o.label for o in s.options] == ["Split now.", "Wait a quarter."]
    assert [(v.persona, v.option_id, v.confidence) for v in s.votes] == [(ARCH, "A", 0.6), (DEV, "A", 0.7),
                                                                       (DEVIL, "B", 0.8)]


async def test_an_abstaining_persona_is_not_numbered_for_the_moderator(make_service):
    h = make_service({"rules": [rule("PersonaReply", "garbage", purpose=DEV), *unanimous_but("B")]},
                     SessionSettings(min_cycles=1, max_cycles=1))
    _res, s = await start(h)
    moderator = next(c for c in calls(h) if c.json_schema["title"] == "OptionsReply").messages[-1].content
    assert "- Advisor 2 [medium, 0.7]: Devil's Advocate prefers option B" in moderator
    assert "Advisor 3" not in moderator
    assert [(v.persona, v.option_id) for v in s.votes] == [(ARCH, "A"), (DEVIL, "B")]
    assert s.tally.abstentions == [DEV]
