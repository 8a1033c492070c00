"""What each call used, as its model reported it (the agent CLIs report tokens, Claude Code's cost, Copilot's premium
requests; issue 32): carried from the provider to the session's metadata per model, and said under the answer."""

from __future__ import annotations

from council.present.answer import provider_name
from council.present.cost import calls_line
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state import reducer
from council.session.state.entities import Spend
from council.words import speaking

PROBLEM = "Should we split our monolith into services this quarter?"
TRIO = ["Software Architect", "Senior Developer", "Devil's Advocate"]
USED = {"input_tokens": 30, "output_tokens": 10, "cost_usd": 0.01, "premium_requests": 1}


async def test_each_calls_usage_reaches_the_metadata_and_the_calls_line(make_service):
    h = make_service({"usage": USED})
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    assert res.status.value == "completed"
    calls = s.metadata.calls_by_model["scripted:scripted"]
    assert calls >= 5
    assert s.metadata.spent_by_model == {"scripted:scripted": Spend(
        input_tokens=30 * calls, output_tokens=10 * calls, cost_usd=0.01 * calls, premium_requests=calls)}
    line = calls_line(s)
    assert f"scripted:scripted {30 * calls} tokens in, {10 * calls} out, ${0.01 * calls:.4f}, premium requests: " \
           f"{calls}" in line, line
    assert res.usage is not None and "Reported by the models" in res.usage.markdown
    snapshot = s.model_dump(mode="json", by_alias=True)
    assert snapshot["metadata"]["spentByModel"]["scripted:scripted"]["inputTokens"] == 30 * calls
    assert reducer.replay(h.runtime(res.session_id).journal).metadata.spent_by_model == s.metadata.spent_by_model
    with speaking("ru"):
        assert "Расход по данным моделей" in calls_line(s) and "премиум-запросов" in calls_line(s)


async def test_a_model_that_reports_nothing_adds_no_usage_words(make_service):
    h = make_service()
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    s = h.runtime(res.session_id).session
    assert s.metadata.spent_by_model == {} and "Reported" not in calls_line(s)


def test_the_agent_cli_kinds_have_names_in_both_languages():
    for kind, name in (("claude", "Claude Code"), ("codex", "Codex"), ("gemini", "Gemini CLI"),
                       ("copilot", "GitHub Copilot CLI")):
        for language in ("en", "ru"):
            with speaking(language):
                assert provider_name(kind) == name
