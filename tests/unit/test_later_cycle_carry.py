"""Issue 34: a later cycle's reply may leave its lists empty — the persona's earlier ones stand (``response_of``
carries them, the Devil's Advocate's counterpoints folded into its advice once) — while a changed position, or a
persona with nothing to carry, still owes them (``check_reply``: unusable; ``soft_checks``: one repair)."""

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


def test_written_lists_are_kept_as_written():
    s, before = session(), earlier()
    mine = {"summary": [f"new {i}" for i in range(5)], "risks": ["new risk"]}
    response, _ = response_of(s, Contract(), 2, CallOutcome(later(**mine)), s.options, None, before)
    assert response.summary == mine["summary"] and response.risks == ["new risk"]
    assert response.advice == before.advice  # the empty one carried


def test_a_changed_position_that_gave_no_lists_keeps_the_earlier_ones_with_a_note():
    s, before = session(), earlier()
    vote = Vote(persona="Gamma", option_id="A", confidence=0.8, rationale="x", conclusion="x", cycle=1)
    outcome = CallOutcome(later(option_id="B"), note="kept as given: your position changed: give at least 5 "
                                                     "bullets in summary, advice, next_steps (standard depth), "
                                                     "for your new position")
    response, _ = response_of(s, Contract(), 2, outcome, s.options, vote, before)
    assert response.changed_position and response.summary == before.summary and response.advice == before.advice
    assert response.note == "changed position but gave no new summary, advice, next steps: those of cycle 1 stand"


def test_checks_of_a_later_reply():
    s, before = session(), earlier()
    vote = Vote(persona="Gamma", option_id="A", confidence=0.8, rationale="x", conclusion="x", cycle=1)
    soft = soft_checks(s, before, s.options, vote)
    check_reply(Contract(always_include=True), None, before)(later())  # empty, with lists and risks to carry
    assert soft(later()) is None  # kept position: nothing owed
    for changed in (later(option_id="B"), later(changed_position=True, change_reason="Advisor A's point")):
        assert soft(changed) == ("your position changed: give at least 5 bullets in summary, advice, next_steps "
                                 "(standard depth), for your new position")
    short = later(summary=["only one"])
    assert soft(short) == ("give at least 5 bullets in summary (standard depth), or leave them empty: your earlier "
                           "ones stand")
    with pytest.raises(ParseFailure, match="must not be empty"):  # it abstained before: nothing to carry
        check_reply(Contract())(later())
    with pytest.raises(ParseFailure, match="counterpoints"):
        check_reply(Contract(always_include=True), None, earlier().model_copy(update={"risks": []}))(later())
