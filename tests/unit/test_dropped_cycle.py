"""A debate cycle that ran but whose every reply was unusable is dropped, and the council answers from the first
vote: what the user reads must say that a cycle ran (its calls were spent), never that no debate cycle followed."""

from __future__ import annotations

import pytest
from unit_helpers import first_vote_rules, persona_rules, rule

from council.protocol.consult import ConsultParams
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state import records as r
from council.session.state.entities import SessionSettings
from council.session.state.reducer import replay

ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
TRIO = [ARCH, DEV, DEVIL]

SAID = {
    "en": ("A debate cycle ran after the first vote, but no advisor's reply in it could be used: the answer rests on "
           "the first vote (A 2 · B 1).",
           "after the first vote (a debate cycle ran after it, but no advisor's reply in it could be used)",
           "_Cycle 2 is set aside: no advisor's reply in it could be used.",
           ("No debate cycle followed", "no debate cycle followed")),
    "ru": ("После первого голосования прошёл цикл дебатов, но ни один ответ советников в нём не удалось "
           "использовать: ответ основан на первом голосовании (A 2 · B 1).",
           "после первого голосования (после него прошёл цикл дебатов, но ни один ответ советников в нём не "
           "удалось использовать)",
           "_Цикл 2 отложен: ни один ответ советников в нём не удалось использовать.",
           ("дебатов не было", "цикла дебатов после него не было")),
}


@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("speculate", ["never", "always"])
async def test_a_cycle_whose_every_reply_was_unusable_is_said_to_have_run(make_service, speculate, language):
    """Cycle 2 ran (three replies, three repairs, three abstentions the user watched), was dropped, and the answer
    said "No debate cycle followed the first vote" and "after the first vote (no debate cycle followed it)"; the
    ``cycle.dropped`` event said nothing."""
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                rule("PersonaReply", "garbage", cycle=2)]}, SessionSettings(min_cycles=2))
    res = await h.service.turn(TurnParams(
        text="Should we split our monolith into services this quarter?",
        options=SessionOptions(clarify=False, personas=TRIO, speculate=speculate, language=language)))
    rt = h.runtime(res.session_id)
    s = rt.session
    assert res.status.value == "completed" and s.debate_cycles == 1
    assert s.metadata.calls == 11  # 3 first replies, the options, 3 replies and 3 repairs in cycle 2, the chair
    verdict, footer, dropped, false = SAID[language]
    assert not any(x in s.final_answer for x in false)
    assert verdict in s.final_answer and footer in s.final_answer
    (event,) = h.of(res.session_id, "cycle.dropped")
    assert event["reason"] == "unusable" and dropped in event["markdown"]
    assert s.unusable_cycles == [2] and s.synthesis.debate.verdict == "unusable"
    assert s.synthesis.debate.unusable_cycles == 1
    back = replay(r.journal_adapter.validate_json(r.journal_adapter.dump_json(rt.journal)))
    assert back.unusable_cycles == [2] and back == s  # a restore keeps that the cycle ran


async def test_a_consult_whose_next_cycle_was_unusable_does_not_say_no_debate_followed(make_service):
    """The consult tools' text (and its ``debate`` field) said "No debate cycle followed the first vote" and "the
    first vote (no debate cycle followed it)" of a consult whose cycle 2 ran and was dropped."""
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                rule("PersonaReply", "garbage", cycle=2)]}, SessionSettings(min_cycles=2))
    res = await h.service.consult(ConsultParams(user_problem="Should we split our monolith into services this "
                                                "quarter?", selected_personas=TRIO, speculate="never"))
    assert "no debate cycle followed" not in res.markdown.lower()
    assert "A debate cycle ran after the first vote, but no advisor's reply in it could be used" in res.markdown
    assert "the first vote (a debate cycle ran after it, but no advisor's reply in it could be used)" in res.markdown
    assert res.debate is not None and (res.debate.verdict, res.debate.unusable_cycles) == ("unusable", 1)


async def test_a_later_cycle_whose_every_reply_was_unusable_is_said_to_have_run(make_service):
    """Cycles 1 and 2 vote, cycle 3 ran (its calls spent) and was dropped: the answer said only "after the first vote
    and 1 debate cycle", as if the council had stopped there."""
    again = {"continue_debate": True}
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)}),
                                *persona_rules(ARCH, [2], option="A", **again),
                                *persona_rules(DEV, [2], option="A", **again),
                                *persona_rules(DEVIL, [2], option="B", **again),
                                rule("PersonaReply", "garbage", cycle=3)]}, SessionSettings(min_cycles=3))
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?",
                                          options=SessionOptions(clarify=False, personas=TRIO, speculate="never")))
    s = h.runtime(res.session_id).session
    assert res.status.value == "completed" and s.debate_cycles == 2 and s.metadata.calls == 14
    assert ("A further debate cycle ran, but no advisor's reply in it could be used: the answer rests on the votes "
            "before it.") in s.final_answer
    assert ("after the first vote and 1 debate cycle (a further debate cycle ran, but no advisor's reply in it "
            "could be used)._") in s.final_answer
    assert s.unusable_cycles == [3] and s.synthesis.debate.unusable_cycles == 1
