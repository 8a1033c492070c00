"""Weak models: a reply cut off by the token budget keeps its complete parts; a shortfall gets one repair, then a
visible note instead of an abstention."""

from __future__ import annotations

import json

import pytest
from unit_helpers import persona_reply, rule

from council.protocol.methods import SessionOptions, TurnParams
from council.session.calls.parsing import ParseFailure, parse_reply, salvage_truncated
from council.session.state.outputs import PersonaReply, reply_schema

DEVIL = "Devil's Advocate"
TRIO = ["Software Architect", "Senior Developer", DEVIL]


def test_salvage_keeps_complete_members_and_finished_list_items():
    text = '{"position": "Split later.", "summary": ["one", "two", "thr'
    assert salvage_truncated(text) == {"position": "Split later.", "summary": ["one", "two"]}
    assert salvage_truncated('{"position": "cut off mid-str') is None
    assert salvage_truncated("no json at all") is None


def test_parse_reply_salvages_only_when_asked_and_only_if_the_rest_validates():
    full = persona_reply(1)
    text = json.dumps(full)
    cut = text[: text.index('"next_steps"') + 40]  # everything up to the middle of next_steps
    schema = reply_schema(PersonaReply)
    with pytest.raises(ParseFailure):
        parse_reply(cut, PersonaReply, schema)
    with pytest.raises(ParseFailure):  # confidence fields never arrived: nothing to salvage into a valid reply
        parse_reply(cut, PersonaReply, schema, salvage=True)
    reordered = {k: full[k] for k in ("position", "confidence", "confidence_rationale", "summary", "advice",
                                      "risks", "next_steps")}
    text = json.dumps(reordered)
    reply = parse_reply(text[:-25], PersonaReply, schema, salvage=True)
    assert reply.position == full["position"] and reply.advice == full["advice"]
    assert reply.next_steps == full["next_steps"][:-1] or reply.next_steps == full["next_steps"][:-2]


async def test_a_cut_off_reply_is_kept_with_a_note_instead_of_an_abstention(make_service):
    full = persona_reply(1, who="Software Architect")
    reordered = {k: full[k] for k in ("position", "confidence", "confidence_rationale", "continue_debate",
                                      "summary", "advice", "risks", "assumptions", "questions", "next_steps")}
    cut = json.dumps(reordered)[:-30]
    h = make_service({"rules": [rule("PersonaReply", cut, purpose="Software Architect", cycle=1, times=2)]})
    res = await h.service.turn(TurnParams(text="Should we split our monolith?",
                                          options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    first = next(r for r in s.responses if r.persona == "Software Architect" and r.cycle == 1)
    assert not first.abstained
    assert first.note == "the reply was cut off; kept its complete parts"
    assert first.advice == full["advice"]


async def test_a_devils_advocate_without_counterpoints_is_repaired_once_like_a_malformed_reply(make_service):
    """Seed 000: the Devil's Advocate always gives counterpoints. A reply without them is repaired once; the repaired
    reply is kept without a note, and its counterpoints reach the synthesis's risks and trade-offs."""
    no_risks = persona_reply(1, who=DEVIL, risks=[])
    repaired = persona_reply(1, who=DEVIL, risks=["A split doubles the on-call load."])
    h = make_service({"rules": [rule("PersonaReply", no_risks, purpose=DEVIL, cycle=1, times=1),
                                rule("PersonaReply", repaired, purpose=DEVIL, cycle=1, times=1)]})
    res = await h.service.turn(TurnParams(text="Should we split our monolith?",
                                          options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    devil = next(r for r in s.responses if r.persona == DEVIL and r.cycle == 1)
    assert not devil.abstained and devil.risks == ["A split doubles the on-call load."]
    assert devil.note == "repaired after one retry"  # as any repaired reply; no shortfall note
    provider = next(iter(h.service.hub._cache.values()))
    calls = [c for c in provider.calls
             if c.purpose == DEVIL and c.cycle == 1 and c.json_schema["title"] == "PersonaReply"]
    assert len(calls) == 2 and "list your counterpoints in risks" in calls[1].messages[-1].content
    assert "A split doubles the on-call load." in s.synthesis.risks_tradeoffs  # not only in the dissent


async def test_a_devils_advocate_that_never_gives_counterpoints_abstains_instead_of_shipping_with_a_note(
        make_service):
    no_risks = persona_reply(1, who=DEVIL, risks=[])
    h = make_service({"rules": [rule("PersonaReply", no_risks, purpose=DEVIL, cycle=1, times=2)]})
    res = await h.service.turn(TurnParams(text="Should we split our monolith?",
                                          options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    devil = next(r for r in s.responses if r.persona == DEVIL and r.cycle == 1)
    assert devil.abstained and "counterpoints" in (devil.note or "")


async def test_the_devils_advocate_advice_ends_with_each_counterpoint_once_and_the_chair_reads_its_own_advice(
        make_service):
    """Seed 000, composed once by the engine: its own advice, then one 'Counterpoint: …' per risk (a repeated risk
    once, line breaks gone); the chair's digest shows its own advice and its risks, not the counterpoints twice."""
    point = "A split doubles\nthe on-call load"
    reply = {**persona_reply(1, who=DEVIL, risks=[point, "a split doubles the on-call load."]), "advice": ["Wait."]}
    h = make_service({"rules": [rule("PersonaReply", reply, purpose=DEVIL, cycle=1)]})
    res = await h.service.turn(TurnParams(text="Should we split our monolith?",
                                          options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    devil = next(r for r in s.responses if r.persona == DEVIL and r.cycle == 1)
    assert devil.advice == ["Wait.", "Counterpoint: A split doubles the on-call load"]
    assert devil.counterpoints == ["A split doubles the on-call load"] and devil.own_advice == ["Wait."]
    assert all(r.counterpoints == [] and r.own_advice == r.advice for r in s.responses if r.persona != DEVIL)
    provider = next(iter(h.service.hub._cache.values()))
    [chair] = [c for c in provider.calls if c.purpose == "synthesizer"]
    digest = next(line for line in chair.messages[-1].content.splitlines() if line.startswith(f"- {DEVIL}"))
    assert "Advice: Wait. Risks: A split doubles" in digest and "Counterpoint" not in digest
