"""``speculate: auto`` on a server on this machine (issue 34, "Spend no call the user did not need"): cycle 2 starts
beside the options call only where the server runs several requests at once, as llama.cpp's server says it
(``GET /props``, ``total_slots``); one that says nothing, fails or hangs is taken to run one at a time, within a
bounded wait. Sessions and a consult's plan through CouncilService, on a real OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from council.config import CouncilConfig, ProviderConfig
from council.personas.loader import PersonaLibrary
from council.protocol.consult import ConsultParams, ConsultPlanParams
from council.protocol.methods import SessionOptions, TurnParams
from council.providers.http_common import SLOTS_PROBE_SECONDS
from council.service import CouncilService
from council.session.state.entities import SessionSettings
from tests.headless.fake_openai import FakeOpenAI, fake_openai

PROBLEM = "Should we split our monolith into services this quarter?"
TRIO = ["Software Architect", "Senior Developer", "Devil's Advocate"]
SETTLED = 3 + 2  # the first vote's three calls, the options, the synthesis: the fake's replies settle it at once
SLOW_SECOND = {"backs": 2.0}  # cycle 2's replies beside the options call: still open when the first vote settles it


def service(library: PersonaLibrary, base_url: str) -> CouncilService:
    cfg = CouncilConfig(default="local", providers={"local": ProviderConfig(kind="openai", model="m",
                                                                            base_url=base_url)})
    return CouncilService(library, cfg, lambda event: None, settings=SessionSettings(min_cycles=2, max_cycles=4))


async def settled(library: PersonaLibrary, fake: FakeOpenAI) -> tuple[Any, float, list[str]]:
    """A session under ``auto`` on ``fake``: its state, its wall time and the schemas of the calls sent, in order."""
    with fake_openai(fake) as url:
        svc = service(library, url)
        began = time.monotonic()
        res = await svc.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
        took = time.monotonic() - began
        s = svc.store.get(res.session_id).rt.session
    assert res.status.value == "completed" and s.debate_cycles == 1  # settled by the first vote
    titles = [body["response_format"]["schema"].get("title", "") for body in fake.requests]
    return s, took, titles


ONE_AT_A_TIME = {
    "one slot": {"props": {"total_slots": 1}},
    "no /props (llama-cpp-python, vLLM)": {"props": None},
    "/props fails": {"props": 500},
    "/props says nothing usable": {"props": {"total_slots": "4"}},
    "/props hangs": {"props_hang": 1_000},
}


@pytest.mark.parametrize("server", list(ONE_AT_A_TIME))
async def test_auto_sends_no_speculative_call_to_a_server_that_runs_one_request_at_a_time(persona_library, server):
    """On such a server the speculative cycle overlaps nothing and delays the options call (bench/results.txt): no
    cycle-2 call is sent, the stated low end is exactly what the session spends, and asking the server costs at most
    one bounded wait (a hung /props does not hold the session up, nor break it)."""
    fake = FakeOpenAI("m", **ONE_AT_A_TIME[server])
    s, took, titles = await settled(persona_library, fake)
    [plan] = s.call_plans
    assert not plan.speculates
    assert titles == ["PersonaReply"] * 3 + ["OptionsReply", "SynthesisReply"]
    assert plan.expected_low == s.metadata.calls == SETTLED and not s.metadata.cancelled_by_model
    assert fake.props_asked == 1  # asked once per provider, not at every step
    assert took < SLOTS_PROBE_SECONDS + 5.0, took


async def test_auto_speculates_on_a_server_that_runs_two_requests_at_once(persona_library):
    """A llama.cpp server started with ``--parallel 2``: cycle 2 starts beside the options call, and the stated low
    end counts its calls (sent, then cancelled once the first vote settled it)."""
    fake = FakeOpenAI("m", props={"total_slots": 2, "model_path": "m.gguf"}, slow=SLOW_SECOND)
    s, _, titles = await settled(persona_library, fake)
    [plan] = s.call_plans
    assert plan.speculates
    assert titles.count("PersonaReply") == 6 and sum(s.metadata.cancelled_by_model.values()) == 3
    assert plan.expected_low == s.metadata.calls == SETTLED + 3
    assert fake.props_asked == 1


@pytest.mark.parametrize(("props", "cycle_two"), [({"total_slots": 1}, 0), ({"total_slots": 4}, 3)])
async def test_a_consults_plan_counts_speculation_as_the_server_allows_it(persona_library, props, cycle_two):
    """The consult's stated minimum (before any call) follows the same rule as the session: on a one-slot server
    it leaves out cycle 2's calls, on a four-slot one it counts them — and a settled consult spends exactly it."""
    fake = FakeOpenAI("m", props=props, slow=SLOW_SECOND)
    with fake_openai(fake) as url:
        svc = service(persona_library, url)
        plan = await svc.consult_plan(ConsultPlanParams(user_problem=PROBLEM, selected_personas=TRIO))
        assert plan.model_calls_min == 1 + SETTLED + cycle_two  # the clarifier's call, then the settled session
        result = await svc.consult(ConsultParams(user_problem=PROBLEM, selected_personas=TRIO))
    assert sum(result.calls_by_model.values()) == plan.model_calls_min


async def test_a_server_that_answers_later_does_not_turn_speculation_on_against_the_stated_plan(persona_library,
                                                                                                monkeypatch):
    """/props hung at the start (the plan said: no speculative calls) and answers "2 slots" when cycle 2 is due (the
    server is asked again once the retry interval has passed): the session keeps to what it stated."""
    from council.providers import http_common

    monkeypatch.setattr(http_common, "SLOTS_RETRY_SECONDS", 0.0)
    fake = FakeOpenAI("m", props={"total_slots": 2}, props_hang=1, slow=SLOW_SECOND)
    s, _, titles = await settled(persona_library, fake)
    [plan] = s.call_plans
    assert not plan.speculates and titles == ["PersonaReply"] * 3 + ["OptionsReply", "SynthesisReply"]
    assert plan.expected_low == s.metadata.calls == SETTLED
