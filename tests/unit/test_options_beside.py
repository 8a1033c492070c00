"""The moderator's options call runs beside cycle 2 (issue 24): one model-call stage where there were two, while the
journal, the events and the votes come out as a cycle after the options makes them.

Scripted sessions through CouncilService; the scripted model's trace (call start, end, cancellation, in order) shows
which calls overlapped. Nothing here is timed: a delay only keeps a call open while others start.
"""

from __future__ import annotations

import json
from pathlib import Path

from unit_helpers import everyone_first, first_vote_rules, persona_reply, rule

from council.protocol.methods import SessionOptions, TurnParams
from council.session.state import records as r
from council.session.state.entities import SessionSettings
from council.session.state.reducer import replay

PROBLEM = "Should we split our monolith into services this quarter?"
ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
TRIO = [ARCH, DEV, DEVIL]
SPLIT = first_vote_rules(**{ARCH: ("A", 0.8), DEV: ("B", 0.8), DEVIL: ("B", 0.6)})
SLOW_OPTIONS = {"when": {"schema": "OptionsReply"}, "delay": 0.02}  # per chunk: open while cycle 2 starts


async def start(h):
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    return res, h.runtime(res.session_id)


def trace_of(path: Path) -> list[tuple[str, str, int]]:
    return [(x["event"], x["purpose"], x["cycle"]) for x in map(json.loads, path.read_text().splitlines())]


async def test_cycle_two_starts_while_the_options_call_runs(make_service, tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    h = make_service({"trace": str(trace), "rules": [SLOW_OPTIONS, *SPLIT]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    res, rt = await start(h)
    assert res.status.value == "completed" and rt.session.debate_cycles == 2
    events = trace_of(trace)
    options_end = events.index(("end", "moderator", 1))
    second = [i for i, (event, who, cycle) in enumerate(events) if event == "start" and cycle == 2 and who in TRIO]
    assert len(second) == 3 and max(second) < options_end  # every cycle-2 call began before the options were in


async def test_records_and_events_come_in_the_order_of_a_cycle_after_the_options(make_service):
    h = make_service({"rules": [SLOW_OPTIONS, *SPLIT]}, SessionSettings(min_cycles=2, max_cycles=2))
    res, rt = await start(h)
    kinds = [(type(x).__name__, getattr(x, "cycle", None)) for x in rt.journal]
    concluded = kinds.index(("CycleConcluded", 1))
    started = next(i for i, x in enumerate(rt.journal) if isinstance(x, r.CycleStarted)
                   and x.discussion.cycle_number == 2)
    assert kinds.index(("OptionsSet", None)) < concluded < started
    assert all(i > started for i, x in enumerate(rt.journal) if isinstance(x, r.PersonaSpoke) and x.response.cycle == 2)
    assert replay(rt.journal).model_dump() == rt.session.model_dump()
    order = [(e["type"], e.get("cycle")) for e in h.events if e.get("sessionId") == res.session_id]
    first_of_cycle_two = min(i for i, (kind, cycle) in enumerate(order) if cycle == 2 and kind.startswith("persona."))
    assert order.index(("cycle.completed", 1)) < first_of_cycle_two  # the first vote is shown before cycle 2


async def test_cycle_two_votes_are_the_options_of_the_backed_recommendations(make_service):
    """The developer (first vote B) backs the architect's recommendation (A) without naming an argument: a vote for
    A, a change of position, flagged as possible conformity; the Devil's Advocate keeps its own (B)."""
    h = make_service({"rules": [*SPLIT, rule("PersonaReply", {**_reply(DEV), "backs": "A"}, purpose=DEV, cycle=2),
                                rule("PersonaReply", {**_reply(ARCH), "backs": "own"}, purpose=ARCH, cycle=2),
                                rule("PersonaReply", {**_reply(DEVIL), "backs": "own"}, purpose=DEVIL, cycle=2)]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    _res, rt = await start(h)
    s = rt.session
    assert {v.persona: v.option_id for v in s.votes if v.cycle == 2} == {ARCH: "A", DEV: "A", DEVIL: "B"}
    dev = next(x for x in s.responses if x.cycle == 2 and x.persona == DEV)
    assert (dev.option_id, dev.changed_position, dev.conformity_flag) == ("A", True, True)


async def test_a_first_vote_that_settles_it_cancels_cycle_two_and_keeps_nothing_of_it(make_service, tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    slow_second = [rule("PersonaReply", None, cycle=2, delay=0.05)]  # auto replies, open when the options come in
    h = make_service({"trace": str(trace), "rules": [everyone_first("A", 0.9), *slow_second]})
    res, rt = await start(h)
    s = rt.session
    assert res.status.value == "completed" and s.debate_cycles == 1 and s.tally.winner == "A"
    assert not [x for x in s.responses if x.cycle == 2] and not [v for v in s.votes if v.cycle == 2]
    events = trace_of(trace)
    assert sorted(who for event, who, cycle in events if event == "start" and cycle == 2) == sorted(TRIO)
    assert sorted(who for event, who, cycle in events if event == "cancelled" and cycle == 2) == sorted(TRIO)
    assert not [e for e in h.events if e.get("cycle") == 2]  # nothing of it was shown


def _reply(who: str) -> dict:
    reply = persona_reply(2, who=who)
    reply.pop("option_id")
    return reply
