"""The first vote's asking (an advisor the moderator could not place is asked which option is its own) across a
stop, a restore in a new sidecar and a retry: over real JSON-RPC against ``council serve`` with scripted models. A
stop while the asking calls are in flight drops the unfinished first cycle (nothing of it is kept, the retry asks
again with the cycle); a stop after it keeps the asked votes, a restored session equals the live one, and the retry
does not ask again."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .conftest import FLIP_FLOP_COUNCIL, PROBLEM, flip_flop_script
from .test_stop import stop_during

ONLY_FIRST = {"when": {"schema": "OptionsReply"}, "reply": {"options": [  # advisor 1 placed; the other two asked
    {"label": "Staged", "description": "Small steps.", "supporters": [1]},
    {"label": "Wait", "description": "Postpone.", "supporters": []}]}}
ARGS = ["--max-cycles", "4"]


def script(tmp_path: Path, slow: dict[str, Any]) -> tuple[dict[str, Any], Path]:
    base, trace = flip_flop_script(), tmp_path / "trace.jsonl"
    return {**base, "trace": str(trace), "rules": [ONLY_FIRST, slow, *base["rules"]]}, trace


def cycle_one_calls(trace: Path) -> Counter:
    """Calls started in cycle 1 per persona: its reply, and its asking when it was asked."""
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return Counter(x["purpose"] for x in events if x["event"] == "start" and x["cycle"] == 1)


def first_votes(s: dict[str, Any]) -> list[tuple[str, str]]:
    return [(v["persona"], v["optionId"]) for v in s["votes"] if v["cycle"] == 1]


ASKED = [("Software Architect", "A"), ("Security Expert", "B"), ("Devil's Advocate", "A")]


@pytest.mark.parametrize("speculate", ["never", "always"])
async def test_a_stop_after_the_asking_keeps_the_asked_votes_through_a_restore_and_the_retry_asks_no_more(
        sidecar, tmp_path, speculate):
    slow = {"when": {"schema": "PersonaReply", "cycle": 2}, "delay": 1.0, "times": 3}
    sc_script, trace = script(tmp_path, slow)
    async with sidecar(script=sc_script, args=ARGS) as sc:
        params = {"text": PROBLEM, "options": {"clarify": False, "personas": FLIP_FLOP_COUNCIL, "speculate": speculate}}
        _turn, stop, sid = await stop_during(sc, params, lambda e: e["type"] == "persona.delta" and e.get("cycle") == 2,
                                             settle=0.3)
        assert stop["stopped"] is True
        snap = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        live = snap["session"]
        assert live["debateCycles"] == 1 and first_votes(live) == ASKED
        async with sidecar(script=sc_script, args=ARGS) as new:
            await new.call("council/restore", {"sessionId": sid, "journal": snap["journal"]})
            restored = (await new.call("council/snapshot", {"sessionId": sid}))["session"]
            assert restored == live
            r = await new.call("council/turn", {"sessionId": sid, "command": "retry"})
            done = (await new.call("council/snapshot", {"sessionId": sid}))["session"]
    assert r["status"] == "completed" and first_votes(done) == ASKED
    assert done["metadata"]["calls"] <= done["callPlans"][-1]["callLimit"]
    asked = cycle_one_calls(trace)  # both sidecars wrote the trace: the asking ran once
    assert asked == {"Software Architect": 1, "Security Expert": 2, "Devil's Advocate": 2, "moderator": 1}


@pytest.mark.parametrize("speculate", ["never", "always"])
async def test_a_stop_while_the_asking_calls_are_in_flight_drops_the_cycle_and_the_retry_runs_it_whole(
        sidecar, tmp_path, speculate):
    sc_script, _trace = script(tmp_path, {"when": {"schema": "OptionChoice"}, "delay": 1.5, "times": 2})
    async with sidecar(script=sc_script, args=ARGS) as sc:
        params = {"text": PROBLEM, "options": {"clarify": False, "personas": FLIP_FLOP_COUNCIL, "speculate": speculate}}
        turn, stop, sid = await stop_during(
            sc, params, lambda e: e["type"] == "progress" and "asking them" in e.get("message", ""))
        assert turn["stopped"] is True and stop["cancelledCalls"] >= 2
        s = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert s["debateCycles"] == 0 and s["votes"] == [] and not s.get("options")
        r = await sc.call("council/turn", {"sessionId": sid, "command": "retry"})
        done = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
    assert r["status"] == "completed" and first_votes(done) == ASKED
    assert done["metadata"]["calls"] <= done["callPlans"][-1]["callLimit"]
