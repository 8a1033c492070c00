"""Issue 34: a later cycle's reply adds at most one new point to each list, or none — the persona's earlier ones
stand after it (``response_of``: new first, each once, the depth's most; the Devil's Advocate's counterpoints folded
into its advice once); a changed position's note says which points came before it; no shortfall is worth a repair
in a later cycle (``soft_checks``), and only a persona with nothing to carry owes its lists (``check_reply``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from unit_helpers import Builder, persona_reply

from council.session.calls.parsing import ParseFailure
from council.session.calls.structured import CallOutcome
from council.session.state.outputs import PersonaReply, PersonaResponse, Vote
from council.session.steps.persona_reply import check_reply, response_of, soft_checks, with_counterpoints

EMPTY = {"summary": [], "advice": [], "next_steps": [], "risks": []}


@dataclass
class Contract:
    name: str = "Gamma"
    always_include: bool = False


def session():
    b = Builder()
    b.create()
    b.options()
    return b.s


def earlier(devil: bool = False) -> PersonaResponse:
    """Its cycle-1 response as the session keeps it (the Devil's Advocate's advice ends with its counterpoints)."""
    kept = PersonaResponse(**persona_reply(1, who="Gamma", risks=["r1", "r2"]), persona="Gamma", cycle=1)
    return with_counterpoints(kept, "en") if devil else kept


def later(**over) -> PersonaReply:
    return PersonaReply(**{**persona_reply(2, option="A", who="Gamma"), **EMPTY, **over})


def test_a_kept_position_carries_every_empty_list_and_the_devils_counterpoints_fold_once():
    s, before = session(), earlier(devil=True)
    assert before.advice[-2:] == ["Counterpoint: r1", "Counterpoint: r2"]
    vote = Vote(persona="Gamma", option_id="A", confidence=0.8, rationale="x", conclusion="x", cycle=1)
    response, cast = response_of(s, Contract(always_include=True), 2, CallOutcome(later()), s.options, vote, before)
    assert response.summary == before.summary and response.next_steps == before.next_steps
    assert response.own_advice == before.own_advice and response.risks == ["r1", "r2"]
    assert response.advice == [*before.own_advice, "Counterpoint: r1", "Counterpoint: r2"]  # once, not twice
    assert response.counterpoints == ["r1", "r2"] and response.note is None and not response.changed_position
    assert cast is not None and cast.option_id == "A"


def test_new_points_come_first_then_the_earlier_ones_each_once_up_to_the_depths_most():
    s, before = session(), earlier()
    mine = {"summary": ["new point"], "advice": [before.advice[2]], "risks": ["new risk"]}
    response, _ = response_of(s, Contract(), 2, CallOutcome(later(**mine)), s.options, None, before)
    assert response.summary == ["new point", *before.summary]  # 5 earlier + 1 new: within standard's 7
    a = before.advice
    assert response.advice == [a[2], a[0], a[1], a[3], a[4]]  # its new point repeated an earlier one: once, first
    assert response.risks == ["new risk", "r1", "r2"] and response.next_steps == before.next_steps
    assert response.note is None
    seven = earlier().model_copy(update={"summary": [f"old {i}" for i in range(7)]})
    response, _ = response_of(s, Contract(), 2, CallOutcome(later(summary=["new"])), s.options, None, seven)
    assert response.summary == ["new", *seven.summary[:6]]  # the depth's most (standard: 7), new first


def test_a_changed_position_says_which_points_came_before_it():
    s, before = session(), earlier()
    vote = Vote(persona="Gamma", option_id="A", confidence=0.8, rationale="x", conclusion="x", cycle=1)
    response, _ = response_of(s, Contract(), 2, CallOutcome(later(option_id="B", advice=["switch to B"])),
                              s.options, vote, before)
    assert response.changed_position and response.advice == ["switch to B", *before.advice]
    assert response.summary == before.summary
    assert response.note == ("changed position: its summary, advice, next steps still hold its points of cycle 1 "
                             "(after any new ones)")


def test_checks_of_a_later_reply():
    s, before = session(), earlier()
    soft = soft_checks(s, 2)
    check_reply(Contract(always_include=True), None, before)(later())  # empty, with lists and risks to carry
    for reply in (later(), later(option_id="B"), later(changed_position=True, change_reason="Advisor A's point"),
                  later(summary=["only one"])):
        assert soft(reply) is None  # a later cycle adds to lists that stand: never short, no repair
    # one that abstained before and answers now: its later schema holds one point a list, so no repair could mend
    # the depth's count (test_mcp_sampling's every-second-failure consult spent its calls on such repairs)
    assert soft(later(summary=["one"], advice=["one"], next_steps=["one"])) is None
    assert soft_checks(s)(later(summary=["only one"])) == (  # the first cycle still owes the depth's count
        "give at least 5 bullets in summary, advice, next_steps (standard depth)")
    with pytest.raises(ParseFailure, match="must not be empty"):  # it abstained before: nothing to carry
        check_reply(Contract())(later())
    with pytest.raises(ParseFailure, match="counterpoints"):
        check_reply(Contract(always_include=True), None, earlier().model_copy(update={"risks": []}))(later())
