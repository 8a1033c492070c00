"""One meaning of "debate cycle" in everything a person reads (issue 31): the first vote is cycle 1 and is not a
debate cycle; the debate cycles are the cycles after it. A session with two cycles said "after 2 debate cycles" and a
consult plan "up to 2 debate cycles" where the count included the first vote, beside a cost line that said "with one
debate cycle" for the same path. The counts on the wire (``maxCycles``, ``cycles``) still count every cycle."""

from __future__ import annotations

import pytest

from council.present.consult import plan_text
from council.present.debate import cycles_planned, cycles_run
from council.present.status import status
from council.protocol.consult import ConsultParams, ConsultPlanParams
from council.words import speaking

ENGLISH = "Should we split our monolith into services this quarter?"
COUNCIL = ["Software Architect", "Devil's Advocate"]


@pytest.mark.parametrize(("lang", "cycles", "after", "said"), [
    ("en", 1, True, "the first vote (no debate cycle followed it)"),
    ("en", 2, True, "the first vote and 1 debate cycle"),
    ("en", 4, True, "the first vote and 3 debate cycles"),
    ("en", 2, False, "the first vote and 1 debate cycle"),
    ("ru", 1, True, "первого голосования (цикла дебатов после него не было)"),
    ("ru", 2, True, "первого голосования и 1 цикла дебатов"),
    ("ru", 3, True, "первого голосования и 2 циклов дебатов"),
    ("ru", 2, False, "первое голосование и 1 цикл дебатов"),
    ("ru", 3, False, "первое голосование и 2 цикла дебатов"),
])
def test_the_cycles_a_council_ran_count_the_first_vote_apart(lang, cycles, after, said):
    with speaking(lang):
        assert cycles_run(cycles, after=after) == said


@pytest.mark.parametrize(("lang", "most", "said"), [
    ("en", 1, "the first vote only, no debate cycle"),
    ("en", 2, "the first vote and up to 1 debate cycle"),
    ("en", 10, "the first vote and up to 9 debate cycles"),
    ("ru", 2, "первое голосование и до 1 цикла дебатов"),
    ("ru", 5, "первое голосование и до 4 циклов дебатов"),
])
def test_a_plan_counts_its_debate_cycles_after_the_first_vote(lang, most, said):
    with speaking(lang):
        assert cycles_planned(most) == said


def test_the_consult_plan_agrees_with_its_cost_words():
    plan = {"council": {"personas": COUNCIL}, "depth": "brief", "max_cycles": 2, "model_calls_min": 5,
            "model_calls_max": 7}
    text = plan_text(plan, "why")
    assert "(brief depth, the first vote and up to 1 debate cycle): 5–7 model calls" in text
    assert "up to 2 debate cycles" not in text


async def test_a_consult_and_its_footer_say_the_first_vote_and_the_debate_cycles_apart(make_service):
    h = make_service()
    params = {"user_problem": ENGLISH, "selected_personas": COUNCIL, "depth": "brief"}
    plan = await h.service.consult_plan(ConsultPlanParams(**params))
    assert plan.max_cycles == 2 and "the first vote and up to 1 debate cycle" in plan.markdown
    r = await h.service.consult(ConsultParams(**params))
    footer = r.markdown.strip().splitlines()[-1]
    said = "the first vote (no debate cycle followed it)" if r.cycles == 1 else \
        f"the first vote and {r.cycles - 1} debate cycle"
    assert footer.startswith(f"_2 personas, {said}"), footer
    assert f"{r.cycles} cycles" not in footer


def test_the_status_line_counts_cycles_not_debate_cycles(builder):
    s = builder.completed(cycles=2)
    line = status(s)
    assert "cycles: 2 of" in line and "(the first vote is cycle 1)" in line and "debate cycles: 2" not in line
