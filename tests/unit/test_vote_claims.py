"""What the answer says of the council's vote is what the council voted: each claim a person reads (the vote line,
what the debate changed) checked against the session's votes, on sessions driven by the scripted models."""

from __future__ import annotations

import pytest
from unit_helpers import first_vote_rules, persona_reply, persona_rules, rule

from council.present.persona import footer
from council.present.transcript import transcript
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.convergence import tally_votes
from council.session.state.entities import SessionSettings
from council.session.state.outputs import Vote, VoteOption

ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
TRIO = [ARCH, DEV, DEVIL]
OPTIONS = [{"label": "Staged approach", "description": "Proceed in small steps."},
           {"label": "Wait", "description": "Postpone."}]
OPTS = [VoteOption(id=i, label=f"Option {i}", description=i) for i in "AB"]


async def start(h, personas=TRIO, **opts):
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?",
                                          options=SessionOptions(clarify=False, personas=personas, **opts)))
    return res, h.runtime(res.session_id).session


def test_votes_of_some_advisors_with_the_others_abstaining_are_not_unanimous():
    """Two votes for A of six seats, four abstaining, were "unanimous for A"."""
    votes = [Vote(persona=p, option_id="A", confidence=0.8, rationale="r") for p in ("p1", "p2")]
    two_of_six = tally_votes(OPTS, votes, ["p3", "p4", "p5", "p6"])
    assert (two_of_six.consensus, two_of_six.winner) == ("none", "A")
    assert tally_votes(OPTS, votes, ["p3"]).consensus == "majority"
    assert tally_votes(OPTS, votes).consensus == "unanimous"


async def test_an_answer_whose_vote_one_advisor_could_not_cast_does_not_say_unanimous(make_service):
    """The developer's reply is unusable (it abstains); the other two vote A: the answer said "unanimous for A"."""
    h = make_service({"rules": [rule("PersonaReply", "garbage", purpose=DEV),
                                *first_vote_rules(**{ARCH: ("A", 0.9), DEVIL: ("A", 0.7)})]},
                     SessionSettings(min_cycles=1, max_cycles=1))
    res, s = await start(h, speculate="never")
    assert res.status.value == "completed" and s.tally.abstentions == [DEV]
    assert s.tally.counts["A"] == 2 and s.tally.consensus == "majority"
    assert "**Vote:** a majority for **A · Staged approach**." in s.final_answer
    assert "unanimous" not in s.final_answer


@pytest.mark.parametrize(("language", "joined", "moved"), [
    ("en", "- Senior Developer cast no first vote and voted for A in the debate.", " moved "),
    ("ru", "- Старший разработчик не отдал первого голоса и в обсуждении проголосовал за A.", " перешёл "),
], ids=["en", "ru"])
async def test_an_advisor_the_first_vote_could_not_place_did_not_move(make_service, language, joined, moved):
    """The moderator places only the architect; the developer (who recommended A from the start) and the Devil's
    Advocate (B) vote in the next cycle as they recommended. "What the debate changed" said "Senior Developer moved
    to A without naming an argument": it never had another vote to move from."""
    one = {"options": [{**OPTIONS[0], "supporters": [1]}, {**OPTIONS[1], "supporters": []}]}
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                rule("OptionsReply", one),
                                *persona_rules(ARCH, [2], option="A"), *persona_rules(DEV, [2], option="A"),
                                *persona_rules(DEVIL, [2], option="B")]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    res, s = await start(h, speculate="never", language=language)
    assert res.status.value == "completed" and [(v.persona, v.option_id) for v in s.votes_in(1)] == [(ARCH, "A")]
    assert [(m.persona, m.from_option, m.to_option) for m in s.synthesis.debate.moves] == [(DEV, None, "A"),
                                                                                         (DEVIL, None, "B")]
    changed = s.final_answer.split("###")[1]  # "What the debate changed"
    assert joined in changed and moved not in changed


async def test_a_tie_that_stood_on_votes_is_not_said_overturned_or_won(make_service):
    """A 1 · B 1 in the first vote and in the final one, nobody moving; only the confidence that breaks the tie went
    from A's side to B's. The answer said "The debate overturned the first vote: A led it, B won the final one
    (A 1 · B 1 → A 1 · B 1)" beside "Nobody changed their vote." and its vote line's tie."""
    pm = "Product Manager"
    h = make_service({"rules": [*first_vote_rules(**{pm: ("A", 0.9), DEVIL: ("B", 0.7)}),
                                *persona_rules(pm, [2], option="A", vote_confidence=0.6),
                                *persona_rules(DEVIL, [2], option="B", vote_confidence=0.9)]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?",
                                          options=SessionOptions(clarify=False, personas=[pm, DEVIL],
                                                                 speculate="never")))
    s = h.runtime(res.session_id).session
    assert s.tally.consensus == "tie" and s.tally.counts == {"A": 1, "B": 1}
    effect = s.synthesis.debate
    assert (effect.verdict, effect.first_winner, effect.final_winner, effect.moves) == ("confirmed", None, None, [])
    assert "The debate did not break the first vote's tie (A 1 · B 1 → A 1 · B 1)." in s.final_answer
    assert "overturned" not in s.final_answer and " won " not in s.final_answer


async def test_one_side_of_a_tie_is_not_the_dissent(make_service):
    """A 1 · B 1, B ahead on confidence only: the answer's "Dissent" named the Product Manager, who voted A, as if
    the council had decided against it (the synthesis's own rule: without a winner there is nothing to dissent from)."""
    pm = "Product Manager"
    h = make_service({"rules": first_vote_rules(**{pm: ("A", 0.6), DEVIL: ("B", 0.9)})},
                     SessionSettings(min_cycles=1, max_cycles=1))
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?",
                                          options=SessionOptions(clarify=False, personas=[pm, DEVIL],
                                                                 speculate="never")))
    s = h.runtime(res.session_id).session
    assert (s.tally.consensus, s.tally.winner) == ("tie", "B")
    assert s.synthesis.dissent == [] and "### Dissent" not in s.final_answer


SEC, PM = "Security Expert", "Product Manager"
QUARTET = [ARCH, DEV, SEC, PM]


async def test_an_agreement_of_the_advisors_who_voted_is_not_said_to_be_the_councils(make_service):
    """Four advisors split 2-2 in the first vote; in the next cycle the two on B give unusable replies and the two
    on A vote A. The cycle's summary said "The council agrees: 100% of the weighted vote backs A. The debate ends
    here: the council agrees." while half the council could not vote (and the vote line says no majority)."""
    h = make_service({"rules": [
        *first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), SEC: ("B", 0.8), PM: ("B", 0.7)}),
        rule("PersonaReply", "garbage", purpose=SEC, cycle=2), rule("PersonaReply", "garbage", purpose=PM, cycle=2),
        *persona_rules(ARCH, [2], option="A"), *persona_rules(DEV, [2], option="A")]},
        SessionSettings(min_cycles=1, max_cycles=3))
    _res, s = await start(h, speculate="never", personas=QUARTET)
    second = s.discussions[1]
    assert second.stop_reason == "converged" and (second.convergence.voters, len(s.personas)) == (2, 4)
    assert "The 2 advisors who voted agree: 100% of the weighted vote backs A · Staged approach." in \
        second.resolution_summary
    assert second.resolution_summary.endswith("The debate ends here: the advisors who voted agree.")
    assert "council agrees" not in second.resolution_summary
    assert "**Vote:** no majority; **A · Staged approach** leads." in s.final_answer


async def test_most_of_the_advisors_who_voted_are_not_most_advisors(make_service):
    """Two of four advisors' first replies are unusable; the two who spoke (A and B) both ask to stop, which settles
    the debate: its summary said "most advisors see no need to continue" of two advisors in four."""
    h = make_service({"rules": [
        rule("PersonaReply", "garbage", purpose=SEC, cycle=1), rule("PersonaReply", "garbage", purpose=PM, cycle=1),
        *first_vote_rules(continue_debate=False, **{ARCH: ("A", 0.9), DEV: ("B", 0.8)})]},
        SessionSettings(min_cycles=1, max_cycles=2))
    _res, s = await start(h, speculate="never", personas=QUARTET)
    first = s.discussions[0]
    assert first.stop_reason == "settled" and first.convergence.voters == 2
    assert first.resolution_summary.endswith(
        "The debate ends here: most of the advisors who voted see no need to continue.")
    assert "most advisors" not in first.resolution_summary


@pytest.mark.parametrize(("language", "said"), [
    ("en", "Software Architect and Senior Developer voted in the first vote but cast no vote in the final one."),
    ("ru", "Голосовали в первом голосовании, но не в итоговом: Архитектор ПО и Старший разработчик."),
], ids=["en", "ru"])
async def test_a_first_vote_lost_to_advisors_who_stopped_voting_says_who(make_service, language, said):
    """A 2 · B 1 in the first vote; in the next cycle the two on A give unusable replies, so the final vote is B 1.
    The answer said "The debate overturned the first vote: A led it, B won the final one" and "Nobody changed their
    vote." — the first vote was not overturned by anyone's argument but lost to two advisors who could not vote."""
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                rule("PersonaReply", "garbage", purpose=ARCH, cycle=2),
                                rule("PersonaReply", "garbage", purpose=DEV, cycle=2),
                                *persona_rules(DEVIL, [2], option="B")]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    _res, s = await start(h, speculate="never", language=language)
    effect = s.synthesis.debate
    assert (effect.verdict, effect.moves, effect.dropped) == ("overturned", [], [ARCH, DEV])
    assert said in s.final_answer.split("###")[1]


async def test_an_advisor_who_changed_and_came_back_is_not_said_never_to_have_changed(make_service):
    """The architect votes A, then B in the second cycle (its summary says it changed position), then A again: the
    answer said "Nobody changed their vote."."""
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                *persona_rules(ARCH, [2], option="B", changed=True, change_reason="the risk"),
                                *persona_rules(ARCH, [3], option="A", changed=True, change_reason="the cost"),
                                *persona_rules(DEV, [2, 3], option="A"), *persona_rules(DEVIL, [2, 3], option="B")]},
                     SessionSettings(min_cycles=3, max_cycles=3))
    _res, s = await start(h, speculate="never")
    assert [v.option_id for v in s.votes if v.persona == ARCH] == ["A", "B", "A"]
    effect = s.synthesis.debate
    assert (effect.verdict, effect.moves, effect.returned) == ("confirmed", [], [ARCH])
    changed = s.final_answer.split("###")[1]
    assert "Nobody changed their vote." not in changed
    assert ("No final vote differs from the first: Software Architect changed their vote during the debate and came "
            "back to it.") in changed


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_round_without_a_readable_vote_is_no_tie_and_no_agreement_of_0_percent(make_service, language):
    """The moderator places nobody (no first vote); cycle 2 votes A 2 · B 1; in cycle 3 two replies are unusable and
    the third names no option. The summaries said "First vote: No option leads yet (a tie).", "Agreement 0% → 67%"
    and "Agreement 67% → 0%: no option leads yet (a tie)." — a round without votes is neither a tie nor 0%."""
    nobody = {"options": [{**o, "supporters": []} for o in OPTIONS]}
    h = make_service({"rules": [rule("OptionsReply", nobody), rule("OptionChoice", "garbage"),
                                *persona_rules(ARCH, [2], option="A"),
                                *persona_rules(DEV, [2], option="A"), *persona_rules(DEVIL, [2], option="B"),
                                rule("PersonaReply", "garbage", purpose=ARCH, cycle=3),
                                rule("PersonaReply", "garbage", purpose=DEV, cycle=3),
                                rule("PersonaReply", {**persona_reply(3, who=DEVIL), "option_id": "Z"}, purpose=DEVIL,
                                     cycle=3)]},
                     SessionSettings(min_cycles=1, max_cycles=4))  # the unplaced advisors asked for their option
    _res, s = await start(h, speculate="never", language=language)  # (no usable answer) took cycle 4's calls
    assert [len(s.votes_in(c)) for c in (1, 2, 3)] == [0, 3, 0] and s.debate_cycles == 3
    first, second, third = (d.resolution_summary for d in s.discussions)
    for summary in (first, second, third):
        assert "0%" not in summary and "tie" not in summary and "ничья" not in summary
    if language == "en":
        assert first.endswith("No vote could be read in this round: nothing to end the debate on.")
        assert second.endswith("Votes: A 2 · B 1. A · Staged approach leads with 67% of the weighted vote.")
        assert third.endswith("No vote could be read in this round: nothing to end the debate on.")


async def test_a_first_vote_without_votes_had_no_tie_to_break(make_service):
    """Nobody placed; the next cycle ends A 1 · B 1 (the Product Manager surer of A). The answer said "The debate
    overturned the first vote" / "broke the first vote's tie" of a first vote that had no votes at all."""
    pm = "Product Manager"
    nobody = {"options": [{**o, "supporters": []} for o in OPTIONS]}
    h = make_service({"rules": [rule("OptionsReply", nobody), *persona_rules(pm, [2], option="A", vote_confidence=0.9),
                                *persona_rules(DEVIL, [2], option="B", vote_confidence=0.6)]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    _res, s = await start(h, speculate="never", personas=[pm, DEVIL])
    assert s.votes_in(1) == [] and s.tally.counts == {"A": 1, "B": 1}
    said = ("The first vote had no votes (no recommendation could be placed under an option); the final vote is a tie "
            "(no votes → A 1 · B 1).")
    assert said in s.final_answer and "tie:" not in s.final_answer and "overturned" not in s.final_answer


async def test_an_advisor_who_changed_and_then_stopped_voting_is_not_said_never_to_have_changed(make_service):
    """The architect votes A, then B in cycle 2, then gives an unusable reply in cycle 3 (the final vote): the answer
    said "Nobody changed their vote." of a council in which it had."""
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                *persona_rules(ARCH, [2], option="B", changed=True, change_reason="the risk"),
                                rule("PersonaReply", "garbage", purpose=ARCH, cycle=3),
                                *persona_rules(DEV, [2, 3], option="A"), *persona_rules(DEVIL, [2, 3], option="B")]},
                     SessionSettings(min_cycles=3, max_cycles=3))
    _res, s = await start(h, speculate="never")
    assert [(v.cycle, v.option_id) for v in s.votes if v.persona == ARCH] == [(1, "A"), (2, "B")]
    effect = s.synthesis.debate
    assert (effect.moves, effect.dropped) == ([], [ARCH])
    changed = s.final_answer.split("###")[1]
    assert "Nobody changed their vote." not in changed and "No final vote differs from the first." in changed


async def test_a_revisit_after_a_vote_without_a_winner_does_not_say_it_moved_from_none(make_service):
    """The options call fails, so each advisor's own position is an option and the first vote is A 1 · B 1 · C 1
    (no winner); after a revisited question every advisor votes B. The answer opened "the recommendation moved from
    **None** to **B · …**"."""
    from test_revisit_vote import revisited

    from council.session.state.entities import SessionStatus

    script = {"rules": [rule("OptionsReply", "no options from me"),
                        *first_vote_rules(**{name: ("A", 0.9) for name in TRIO}),
                        *[{"when": {"schema": "PersonaReply", "purpose": name, "anywhere": "This year"},
                           "reply": persona_reply(2, option="B", changed=True, change_reason="the answer", who=name)}
                          for name in TRIO]]}
    h = make_service(script, SessionSettings(min_cycles=1, max_cycles=1))
    done, s = await revisited(h)
    assert done.status is SessionStatus.COMPLETED and s.revisits[-1].winner_before is None
    assert s.tally.winner == "B"
    assert "None" not in s.final_answer
    assert "**What changed:** the vote before your answer had no winner; now **B · " in s.final_answer


async def architect_alone_placed_then_all_vote(make_service):
    """Only the architect placed in the first vote (A, 1 of 3; at a cap of 2 cycles the plan has no room to ask the
    others), then all three vote A 2 · B 1 in cycle 2."""
    one = {"options": [{**OPTIONS[0], "supporters": [1]}, {**OPTIONS[1], "supporters": []}]}
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                rule("OptionsReply", one), *persona_rules(ARCH, [2], option="A"),
                                *persona_rules(DEV, [2], option="A"), *persona_rules(DEVIL, [2], option="B")]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    _res, s = await start(h, speculate="never")
    return s


async def test_a_first_vote_of_too_few_advisors_is_no_agreement_that_fell(make_service):
    """Only the architect placed (A, 1 of 3: too few, its summary says so); in the next cycle all three vote A 2 · B 1.
    That summary said "Agreement fell from 100% to 67%" as if an advisor had left an agreement; it states the
    standing instead."""
    s = await architect_alone_placed_then_all_vote(make_service)
    second = s.discussions[1].resolution_summary
    assert "fell" not in second and "100%" not in second
    assert second.endswith("Votes: A 2 · B 1. A · Staged approach leads with 67% of the weighted vote.")


@pytest.mark.parametrize(("language", "now", "still"), [
    ("en", "Agreement fell from 71% to 67%; B · Wait leads now.", "still leads"),
    ("ru", "Согласие упало с 71% до 67%; теперь впереди B · Wait.", "по-прежнему"),
], ids=["en", "ru"])
async def test_an_option_that_took_the_lead_does_not_still_lead(make_service, language, now, still):
    """A 2 · B 1 in the first vote; in the next cycle the architect goes over to B (A 1 · B 2): the cycle's summary
    said "Agreement fell from 71% to 67%; B · Wait still leads." of an option that had never led before."""
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                *persona_rules(ARCH, [2], option="B", changed=True, change_reason="the cost"),
                                *persona_rules(DEV, [2], option="A"), *persona_rules(DEVIL, [2], option="B")]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    _res, s = await start(h, speculate="never", language=language)
    first, second = s.discussions[0].convergence, s.discussions[1].convergence
    assert (first.leader, second.leader, second.status) == ("A", "B", "diverging")
    assert now in s.discussions[1].resolution_summary and still not in s.discussions[1].resolution_summary


async def test_one_advisor_who_came_back_is_not_plural_in_russian(make_service):
    """The architect votes A, B, then A again: the Russian answer said "Архитектор ПО меняли голос в ходе дебатов и
    вернулись к нему" (one architect with plural verbs); it lists the names after the sentence now, as the line of
    those who stopped voting does: "…; меняли голос в ходе дебатов и вернулись к нему: Архитектор ПО."."""
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                *persona_rules(ARCH, [2], option="B", changed=True, change_reason="риск"),
                                *persona_rules(ARCH, [3], option="A", changed=True, change_reason="цена"),
                                *persona_rules(DEV, [2, 3], option="A"), *persona_rules(DEVIL, [2, 3], option="B")]},
                     SessionSettings(min_cycles=3, max_cycles=3))
    _res, s = await start(h, speculate="never", language="ru")
    assert s.synthesis.debate.returned == [ARCH]
    assert ("Ни один итоговый голос не отличается от первого; меняли голос в ходе дебатов и вернулись к нему: "
            "Архитектор ПО.") in s.final_answer
    assert "Архитектор ПО меняли" not in s.final_answer


async def test_one_advisor_of_two_gave_a_position_in_russian(make_service):
    """One of two advisors' replies is unusable: the Russian summary said "Позицию высказали 1 из 2 советников" (a
    plural verb of one advisor); it reads "Позиция есть у 1 из 2 советников.", which no count can put out of
    agreement."""
    h = make_service({"rules": [*first_vote_rules(**{PM: ("A", 0.9), DEVIL: ("B", 0.7)}),
                                rule("PersonaReply", "garbage", purpose=DEVIL, cycle=2),
                                *persona_rules(PM, [2], option="A")]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    _res, s = await start(h, speculate="never", language="ru", personas=[PM, DEVIL])
    assert s.discussions[1].resolution_summary.startswith("Позиция есть у 1 из 2 советников.")
    assert "высказали 1 " not in s.discussions[1].resolution_summary


async def test_a_round_after_one_of_too_few_votes_is_not_diverging(make_service):
    """Only the architect placed in the first vote (A, 1 of 3); in the next cycle all three vote A 2 · B 1. The
    summary no longer said the agreement fell, but the round's convergence was still "diverging" ("agreement fell
    from 100% to 67%") — in the transcript's convergence table and the wire's cycle.completed: one advisor's 100%
    is no agreement the council had, to fall from."""
    s = await architect_alone_placed_then_all_vote(make_service)
    second = s.discussions[1].convergence
    assert (second.status, second.voters, second.seats) == ("refining", 3, 3)
    assert "fell" not in second.reason
    assert "| 2 | A 2 · B 1 | A · Staged approach | 67% | refining |" in transcript(s)


async def test_a_reason_that_ends_with_its_own_full_stop_is_not_followed_by_a_second(make_service):
    """The Devil's Advocate moves to A saying "The audit comes first." — the cycle summary, its persona footer and
    what the debate changed each set the reason in a sentence of their own that ends with a full stop: "first..".
    """
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.6)}),
                                rule("PersonaReply", persona_reply(2, option="A", who=DEVIL, changed=True,
                                                                   change_reason="The audit comes first. "),
                                     purpose=DEVIL, cycle=2)]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    _res, s = await start(h, speculate="never")
    second = next(d for d in s.discussions if d.cycle_number == 2)
    moved = next(x for x in s.responses if x.persona == DEVIL and x.cycle == 2)
    footers = [footer(moved)]  # the persona's full text (the detailed view) ends with it
    said = [second.resolution_summary, s.final_answer, *footers]
    assert "changed position: The audit comes first." in second.resolution_summary
    assert "moved from B to A: The audit comes first." in s.final_answer
    assert "_Changed position: The audit comes first._" in footers[0]
    assert not any("first.." in text or "first. ." in text for text in said)
