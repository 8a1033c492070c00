"""A debate cycle in which nobody named an option still ran (issue 31, seen in the e2e): the answer said "No debate
cycle followed the first vote" because it read the cycles off the votes. It says the cycle ran and that the first
vote stands, in English and Russian."""

from __future__ import annotations

from unit_helpers import persona_reply, rule

from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import SessionSettings

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
SPLIT = {"Software Architect": "A", "Senior Developer": "A", "Devil's Advocate": "B"}  # the first vote: A 2 · B 1


def script() -> dict:
    first = [rule("PersonaReply", persona_reply(1, option=o, who=name), purpose=name, cycle=1)
             for name, o in SPLIT.items()]
    later = rule("PersonaReply", {**persona_reply(2, continue_debate=False), "option_id": "none of these"}, cycle=2)
    return {"rules": [*first, later]}


async def test_a_debate_cycle_without_votes_is_said_to_have_run(make_service):
    for text, said, wrong in (
        ("Should we split our monolith into services this quarter?",
         "1 debate cycle followed the first vote, but no advisor voted on the options after it, so the first vote "
         "(A 2 · B 1) is the final one.", "No debate cycle followed"),
        ("Стоит ли нам разделить монолит на сервисы в этом квартале?",
         "После первого голосования прошло: 1 цикл дебатов, но ни один советник не проголосовал за варианты, так "
         "что первое голосование (A 2 · B 1) и есть итоговое.", "дебатов не было, так что"),
    ):
        h = make_service(script(), SessionSettings(min_cycles=2, max_cycles=2, speculate="never"))
        r = await h.service.turn(TurnParams(text=text, options=SessionOptions(personas=COUNCIL, clarify=False)))
        s = h.runtime(r.session_id).session
        assert s.debate_cycles == 2 and {v.cycle for v in s.votes} == {1}, [(v.persona, v.cycle) for v in s.votes]
        effect = s.synthesis.debate
        assert (effect.verdict, effect.since, effect.cycles_after) == ("no_new_vote", "first_vote", 1)
        assert said in s.final_answer and wrong not in s.final_answer, s.final_answer


async def test_a_first_vote_that_placed_nobody_is_not_said_to_be_the_final_one(make_service):
    """Seen running the README's quick start on the embedded model: the moderator could place none of the three
    recommendations (no first vote), cycle 2 voted A 2 · B 1, and the answer said "No debate cycle followed the first
    vote (A 2 · B 1), so the first vote is the final one" — it took cycle 2's votes for the first vote. The first vote
    is cycle 1's, empty; the debate after it decided."""
    unplaced = {"options": [{"label": "Staged approach", "description": "Proceed in small steps.", "supporters": []},
                            {"label": "Wait", "description": "Postpone.", "supporters": []}]}
    later = [rule("PersonaReply", persona_reply(2, option=o, who=name, continue_debate=False), purpose=name, cycle=2)
             for name, o in SPLIT.items()]
    h = make_service({"rules": [rule("OptionsReply", unplaced), *later]},
                     SessionSettings(min_cycles=2, max_cycles=2, speculate="never"))
    r = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?",
                                        options=SessionOptions(personas=COUNCIL, clarify=False)))
    s = h.runtime(r.session_id).session
    assert s.debate_cycles == 2 and {v.cycle for v in s.votes} == {2}, [(v.persona, v.cycle) for v in s.votes]
    effect = s.synthesis.debate
    assert (effect.verdict, effect.cycles_after, effect.first_winner, effect.final_winner) == ("overturned", 1, None,
                                                                                               "A")
    assert sum(effect.first_counts.values()) == 0 and [m.from_option for m in effect.moves] == [None, None, None]
    assert "No debate cycle followed" not in s.final_answer
    said = ("The first vote had no votes (no recommendation could be placed under an option); the debate decided: "
            "**A · Staged approach** won (no votes → A 2 · B 1).")  # no votes are no tie to break
    assert said in s.final_answer
