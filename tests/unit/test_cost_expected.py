"""What a session says it will spend, against what it spends (issue 31): the likely spend beside the worst case,
cancelled calls named and counted per model, and no speculative calls on metered models unless asked for.

Scripted sessions through CouncilService; the scripted model's trace shows which calls were started and cancelled.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from unit_helpers import everyone_first, rule

from council.config import ProviderConfig
from council.present.cost import calls_line
from council.protocol.methods import SessionOptions, TurnParams
from council.providers.client import ClientProvider
from council.providers.ollama import OllamaProvider
from council.providers.openai_compat import OpenAICompatProvider
from council.providers.registry import metered
from council.providers.scripted import ScriptedProvider
from council.session.state.entities import SessionSettings
from council.session.steps.costing import speculates

PROBLEM = "Should we split our monolith into services this quarter?"
TRIO = ["Software Architect", "Senior Developer", "Devil's Advocate"]
SLOW_SECOND = rule("PersonaReply", None, cycle=2, delay=0.05)  # auto replies, still open when the options come in


def trace_of(path: Path) -> list[tuple[str, str, int]]:
    return [(x["event"], x["purpose"], x["cycle"]) for x in map(json.loads, path.read_text().splitlines())]


async def settled_session(make_service, tmp_path: Path, speculate: str | None, **options):
    trace = tmp_path / f"trace-{speculate}.jsonl"
    h = make_service({"trace": str(trace), "rules": [everyone_first("A", 0.9), SLOW_SECOND]},
                     SessionSettings(min_cycles=2, max_cycles=4))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(
        clarify=False, personas=TRIO, speculate=speculate, **options)))
    rt = h.runtime(res.session_id)
    assert res.status.value == "completed" and rt.session.debate_cycles == 1  # settled by the first vote
    return h, rt, trace_of(trace), res


@pytest.mark.parametrize("speculate", ["never", "always", None])
async def test_the_expected_spend_brackets_a_session_settled_by_the_first_vote(make_service, tmp_path, speculate):
    """It said "at most 86" and spent 12: the line now says what the likely path costs — within 1.5× of what a
    session settled by the first vote spends — beside the hard bound, in each speculation mode."""
    h, rt, trace, _ = await settled_session(make_service, tmp_path, speculate)
    s = rt.session
    [plan] = s.call_plans
    spent = s.metadata.calls
    assert plan.expected_low <= spent <= plan.expected_high < plan.max_calls
    asking = 0 if plan.speculates else len(TRIO)  # the high end also counts asking each advisor its option
    assert (plan.expected_low + plan.expected_high - asking) / 2 <= 1.5 * spent
    assert plan.expected_low == spent  # the settled path is the one it names first
    [cost] = h.of(s.session_id, "cost.estimated")
    said = f"About {plan.expected_low}–{plan.expected_high} model calls expected ({plan.expected_low} if the first " \
           f"vote settles it, {plan.expected_high} with one debate cycle"
    assert cost["markdown"].startswith(f"_💰 {said}"), cost["markdown"]
    assert f"; at most {plan.max_calls} model calls" in cost["markdown"]
    second = [who for event, who, cycle in trace if event == "start" and cycle == 2]
    if speculate == "never":
        assert second == [] and not plan.speculates and spent == 3 + 2
    else:  # scripted models are free: auto speculates, like always; the three cycle-2 calls are sent and cancelled
        assert sorted(second) == sorted(TRIO) and plan.speculates and spent == 3 + 2 + 3
        assert "3 of them for cycle 2, started beside the options call: sent even if the first vote" in cost["markdown"]


async def test_cancelled_calls_are_named_as_cancelled_and_counted_on_their_model(make_service, tmp_path):
    """"6 on Model A, 2 on Model B; 4 failed": the failed ones were the cycle-2 calls cancelled when the first vote
    settled it, and Model B received 4. Cancelled calls are not failures, and each model counts what it received."""
    _, rt, trace, res = await settled_session(make_service, tmp_path, "always", models=["s:alpha", "s:beta"])
    m = rt.session.metadata
    cancelled = [who for event, who, cycle in trace if event == "cancelled" and cycle == 2]
    assert sorted(cancelled) == sorted(TRIO)
    assert sum(m.cancelled_by_model.values()) == 3 and not m.failed_by_model
    assert all(use.failures == 0 for use in m.models.values())
    line = calls_line(rt.session)
    assert "3 cancelled" in line and "failed" not in line, line
    starts = sum(1 for event, _, _ in trace if event == "start")
    assert sum(m.calls_by_model.values()) == m.calls == starts and len(m.calls_by_model) == 2
    for label, count in m.calls_by_model.items():  # every model named with every call it received
        assert f"{count} on {label}" in line, line
    assert res.usage is not None and "3 cancelled" in res.usage.markdown
    assert (res.usage.cancelled, res.usage.failed, res.usage.calls) == (3, 0, m.calls)


def test_only_models_free_to_call_are_unmetered():
    """Speculative calls are billed on premium requests and an MCP client's model; a local model costs nothing."""
    local = ProviderConfig(kind="openai", model="m", base_url="http://127.0.0.1:8080/v1")
    remote = ProviderConfig(kind="openai", model="m", base_url="https://api.openai.com/v1")
    assert not metered(ScriptedProvider())
    assert not metered(OpenAICompatProvider(local))
    assert not metered(OllamaProvider(ProviderConfig(kind="ollama", model="q", base_url="http://localhost:11434")))
    assert metered(OpenAICompatProvider(remote))
    assert metered(OllamaProvider(ProviderConfig(kind="ollama", model="q", base_url="http://gpu-box:11434")))
    assert metered(ClientProvider(bridge=None, model="Copilot"))  # VS Code's chat models, an MCP client's model


async def test_auto_speculates_only_where_no_seat_is_metered(make_service):
    h = make_service()
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    free, paid = ScriptedProvider(), ClientProvider(bridge=None, model="Copilot")
    one = ScriptedProvider(script={"parallel": 1})
    assert await speculates(s, lambda role: free)
    assert not await speculates(s, lambda role: paid if role == "Senior Developer" else free)
    assert not await speculates(s, lambda role: one)  # one call at a time: nothing runs beside the options call
    assert await speculates(s, lambda role: one if role == "moderator" else free)  # the seats' calls run elsewhere
    for mode, expected in (("always", True), ("never", False)):
        settled = s.model_copy(update={"settings": s.settings.model_copy(update={"speculate": mode})})
        assert await speculates(settled, lambda role: paid) is expected
        assert await speculates(settled, lambda role: free) is expected
        assert await speculates(settled, lambda role: one) is expected


async def test_each_provider_says_how_many_calls_its_backend_runs_at_once(make_service):
    """The in-process model runs one generation at a time (every embedded model shares the process); Ollama does
    not say how many requests it runs at once (nothing is asked: one); an agent CLI runs a process per call; the
    scripted double declares it. Under auto a council on the embedded model alone waits for the options."""
    from council.providers.claude_code import ClaudeCodeProvider
    from council.providers.embedded import EmbeddedProvider

    embedded = EmbeddedProvider(ProviderConfig(kind="embedded"))
    assert await embedded.parallel_calls() == 1
    assert embedded.backend() == EmbeddedProvider(ProviderConfig(kind="embedded", model="/m/other.gguf")).backend()
    ollama = OllamaProvider(ProviderConfig(kind="ollama", model="q", base_url="http://localhost:11434"))
    assert await ollama.parallel_calls() == 1
    assert await ClaudeCodeProvider(ProviderConfig(kind="claude")).parallel_calls() is None
    assert await ScriptedProvider().parallel_calls() is None
    assert await ScriptedProvider(script={"parallel": 3}).parallel_calls() == 3
    h = make_service()
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    assert not await speculates(s, lambda role: embedded)
    assert await speculates(s, lambda role: ollama if role == "moderator" else embedded)  # two backends


@pytest.mark.parametrize("parallel", [1, 2])
async def test_auto_speculates_only_where_the_calls_can_run_beside_the_options_call(make_service, tmp_path, parallel):
    """Measured on a one-request-at-a-time server (issue 34): the speculative cycle overlapped nothing and queued the
    options call behind it. A model that runs one call at a time gets no speculative calls under ``auto``, and the
    plan's low end is what the settled session spends; one that runs two at once does, as before."""
    trace = tmp_path / "trace.jsonl"
    h = make_service({"trace": str(trace), "parallel": parallel, "rules": [everyone_first("A", 0.9), SLOW_SECOND]},
                     SessionSettings(min_cycles=2, max_cycles=4))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    [plan] = s.call_plans
    second = [who for event, who, cycle in trace_of(trace) if event == "start" and cycle == 2]
    assert res.status.value == "completed" and s.debate_cycles == 1
    assert plan.expected_low == s.metadata.calls <= plan.expected_high
    if parallel == 1:
        assert not plan.speculates and second == [] and s.metadata.calls == 3 + 2
    else:
        assert plan.speculates and sorted(second) == sorted(TRIO) and s.metadata.calls == 3 + 2 + 3


def test_council_ask_passes_speculate_as_a_session_option():
    import argparse

    from council.cli.ask_args import add_arguments, session_options

    p = argparse.ArgumentParser()
    add_arguments(p)
    assert session_options(p.parse_args(["--speculate", "always", "Split?"]))["speculate"] == "always"
    assert "speculate" not in session_options(p.parse_args(["Split?"]))  # the sidecar's default: auto
    SessionOptions.model_validate(session_options(p.parse_args(["--speculate", "never", "Split?"])))


async def test_a_consults_plan_counts_the_speculative_calls_as_the_consult_will_make_them(make_service):
    """A consult on the client's model (metered): by default its plan's minimum is the settled path without the
    second cycle's calls; asked to speculate, they are in it. On the sidecar's free model (the scripted one here),
    ``auto`` speculates, so the minimum counts them too — the plan says what a settled consult really spends."""
    from council.protocol.consult import ConsultParams, ConsultPlanParams

    h = make_service()
    base = {"user_problem": PROBLEM, "selected_personas": TRIO}
    lent = await h.service.consult_plan(ConsultPlanParams(**base, client_model="gpt-x"))
    always = await h.service.consult_plan(ConsultPlanParams(**base, client_model="gpt-x", speculate="always"))
    assert lent.model_calls_min == 1 + 3 + 2 and always.model_calls_min == 1 + 3 + 3 + 2
    assert lent.model_calls_max == always.model_calls_max
    free = await h.service.consult_plan(ConsultPlanParams(**base))
    never = await h.service.consult_plan(ConsultPlanParams(**base, speculate="never"))
    assert free.model_calls_min == 1 + 3 + 3 + 2 and never.model_calls_min == 1 + 3 + 2
    ran = await h.service.consult(ConsultParams(**base))
    spent = sum(ran.calls_by_model.values())  # cancelled calls included: they were sent
    assert free.model_calls_min <= spent <= free.model_calls_max, (spent, free)


async def test_the_plan_stated_for_more_questions_counts_the_speculative_calls_the_session_makes(make_service,
                                                                                                 tmp_path):
    """Asking for more clarifying questions states a new plan; it counts cycle 2's calls started beside the options
    call as the session then makes them (it said none, and the session sent three), and the session keeps to it."""
    trace = tmp_path / "trace.jsonl"
    h = make_service({"trace": str(trace), "rules": [everyone_first("A", 0.9), SLOW_SECOND]},
                     SessionSettings(min_cycles=2, max_cycles=4))
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=TRIO)))
    sid = res.session_id
    await h.service.turn(TurnParams(session_id=sid, text="more questions"))
    done = await h.service.turn(TurnParams(session_id=sid, text="skip all"))
    s = h.runtime(sid).session
    assert done.status.value == "completed" and s.debate_cycles == 1
    plan = s.call_plans[-1]
    second = [who for event, who, cycle in trace_of(trace) if event == "start" and cycle == 2]
    assert plan.phase == "more_questions" and plan.speculates and sorted(second) == sorted(TRIO)
    spent_since = s.metadata.calls - (plan.call_limit - plan.max_calls)  # the calls made after it was stated
    assert plan.expected_low == spent_since == 1 + 3 + 3 + 2  # the clarifier, the first vote, cycle 2, options, answer
