"""``council mcp`` driven by the official MCP SDK client: tools and schemas, consults at every depth with
progress, persona consult, draft-gated persona overrides, elicitation (answered, declined, unsupported), the
error shape, and cancellation mid-consult."""

from __future__ import annotations

import json
from pathlib import Path

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from council.protocol.constants import MAX_TEXT

from .conftest import PROBLEM, bullets, cancel_mid_call, tool_error

DEPTHS = {"brief": (2, 3), "standard": (5, 7), "deep": (10, 14)}


async def test_tools_are_listed_with_titles_annotations_and_schemas(mcp_client):
    async with mcp_client() as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert list(tools) == ["council_consult", "persona_consult", "council_define_personas", "council_review"]
        consult = tools["council_consult"]
        assert consult.title and consult.annotations.read_only_hint is True
        assert tools["persona_consult"].annotations.read_only_hint is True
        assert tools["council_define_personas"].annotations.read_only_hint is False
        assert tools["council_define_personas"].annotations.idempotent_hint is True
        assert tools["council_define_personas"].annotations.destructive_hint is True  # may replace override fields
        assert tools["council_review"].annotations.read_only_hint is True
        assert "remembered" not in consult.description  # nothing is kept without --memory or --transcript-dir
        assert consult.input_schema["required"] == ["user_problem"]
        assert consult.input_schema["properties"]["depth"]["enum"] == ["brief", "standard", "deep"]
        assert tools["persona_consult"].input_schema["required"] == ["user_problem", "persona_name"]
        out = consult.output_schema
        assert {"responses", "synthesis"} <= set(out["required"])
        assert set(out["properties"]["responses"]["items"]["required"]) >= {
            "persona", "summary", "advice", "confidence", "confidence_rationale"}
        assert set(out["properties"]["synthesis"]["properties"]) >= {
            "agreements", "conflicts", "risks_tradeoffs", "next_steps", "notes"}
        for t in tools.values():
            assert "$ref" not in json.dumps([t.input_schema, t.output_schema])


@pytest.mark.parametrize("depth", ["brief", "standard", "deep"])
async def test_consult_at_each_depth_reports_progress_and_returns_structured_content(mcp_client, depth):
    progress: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    async with mcp_client() as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": depth},
                              progress_callback=on_progress)
    assert not r.is_error  # the SDK client validated structuredContent against the outputSchema
    data = r.structured_content
    lo, hi = DEPTHS[depth]
    assert data["depth"] == depth and len(data["responses"]) == len(data["council"]["personas"]) >= 2
    for resp in data["responses"]:
        assert lo <= bullets(resp["summary"]) <= hi and lo <= bullets(resp["advice"]) <= hi
        assert lo <= len(resp["next_steps"]) <= hi
    assert lo <= len(data["synthesis"]["next_steps"]) <= hi
    text = r.content[0].text
    assert text.startswith("**Recommendation:**") and len(text) < 3000
    assert data["session_id"] and data["session_id"] not in text  # an internal id: structured data, not the text
    messages = [m for _, m in progress]
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert any(m and m.startswith("Council: ") for m in messages)
    assert any(m and "answered (cycle 1)" in m for m in messages) and "Votes tallied." in messages


async def test_persona_consult(mcp_client):
    async with mcp_client() as s:
        r = await s.call_tool("persona_consult", {"user_problem": PROBLEM, "persona_name": "Financial Officer",
                                                  "constraints": ["budget frozen"], "depth": "brief"})
    assert not r.is_error
    assert [x["persona"] for x in r.structured_content["responses"]] == ["Financial Officer"]
    assert r.structured_content["council"]["user_override"] is True
    # seed 002: one persona answers without debating itself (no cycles, no vote of one against nobody)
    assert r.structured_content["cycles"] == 0 and "vote" not in r.structured_content
    assert r.structured_content["model_calls"] == 3  # the clarifier, its answer, the chair


async def test_define_personas_draft_confirm_then_the_next_consult_uses_it(mcp_client, tmp_path: Path):
    focus = "Cost of delay for every option"
    script = {"rules": [{"when": {"schema": "PersonaReply", "anywhere": focus},
                         "reply": {"position": "Price the delay before anything else.", "summary": ["a", "b"],
                                   "advice": ["a", "b"], "risks": ["Delay is expensive."], "next_steps": ["a", "b"],
                                   "confidence": "high", "confidence_rationale": "scripted",
                                   "vote_confidence": 0.9, "continue_debate": False}}]}
    consult = {"user_problem": PROBLEM, "persona_name": "Devil's Advocate", "depth": "brief"}
    async with mcp_client(script=script) as s:
        before = await s.call_tool("persona_consult", consult)
        assert before.structured_content["responses"][0]["position"] != "Price the delay before anything else."
        draft = await s.call_tool("council_define_personas",
                                  {"overrides": {"Devil's Advocate": {"focus": [focus]}}})
        d = draft.structured_content["draft"]
        assert not draft.is_error and d["id"] in draft.content[0].text and not (tmp_path / "ws" / ".council").exists()
        applied = await s.call_tool("council_define_personas", {"confirm": d["id"]})
        assert applied.structured_content["written"] == [".council/personas/devils-advocate.toml"]
        again = await s.call_tool("council_define_personas", {"confirm": d["id"]})
        assert again.structured_content["written"] == [] and again.structured_content["applied"]
        after = await s.call_tool("persona_consult", consult)
        assert after.structured_content["responses"][0]["position"] == "Price the delay before anything else."
    text = (tmp_path / "ws" / ".council" / "personas" / "devils-advocate.toml").read_text(encoding="utf-8")
    assert text == f'id = "devils-advocate"\nfocus = [\n  "{focus}",\n]\n'


async def test_elicitation_answered(mcp_client):
    asked: list[types.ElicitRequestParams] = []

    async def elicit(_ctx, params):
        asked.append(params)
        if len(asked) == 1:
            return types.ElicitResult(action="accept", content={"choice": "Cut costs"})
        return types.ElicitResult(action="accept", content={"answer": "By the end of next month"})

    async with mcp_client(elicit=elicit) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})
    assert len(asked) == 2 and "choice" in asked[0].requested_schema["properties"]
    clar = r.structured_content["clarifications"]
    assert [(c["status"], c["answer"]) for c in clar] == [("answered", "Cut costs"),
                                                          ("answered", "By the end of next month")]
    assert r.structured_content["assumptions"] == [] and r.structured_content["open_questions"] == []


async def test_an_elicited_answer_longer_than_council_answer_allows_is_refused(mcp_client):
    asked: list[types.ElicitRequestParams] = []
    answers = iter(["A" * (MAX_TEXT + 1), "A" * MAX_TEXT, "B" * MAX_TEXT])

    async def elicit(_ctx, params):
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": next(answers)})

    async with mcp_client(elicit=elicit) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})
        assert asked[0].requested_schema["properties"]["answer"]["maxLength"] == MAX_TEXT
        assert r.is_error and tool_error(r)["code"] == "validation"
        assert "answer" in tool_error(r)["details"]["fields"]
        ok = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})  # at the limit
    assert not ok.is_error
    assert [c["answer"] for c in ok.structured_content["clarifications"]] == ["A" * MAX_TEXT, "B" * MAX_TEXT]


async def consult_with_progress(mcp_client, script: dict) -> tuple[object, list[str]]:
    """A brief council_consult on this scripted model: its result and every progress message."""
    messages: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with mcp_client(script=script) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"},
                              progress_callback=on_progress)
    return r, messages


async def test_progress_says_which_personas_could_not_answer_and_why(mcp_client):
    script = {"rules": [{"when": {"schema": "PersonaReply", "purpose": "Devil's Advocate"}, "error": "overloaded"}]}
    r, messages = await consult_with_progress(mcp_client, script)
    assert not r.is_error
    assert "Devil's Advocate could not answer (cycle 1): the scripted test model is overloaded (HTTP 529)." \
        in messages, messages
    assert not [m for m in messages if m.startswith("Devil's Advocate answered")]
    assert "Software Architect answered (cycle 1)." in messages


async def test_progress_of_a_consult_whose_every_advisor_failed_never_says_answered(mcp_client):
    r, messages = await consult_with_progress(mcp_client, {"rules": [{"when": {"schema": "PersonaReply"},
                                                                       "error": "client"}]})
    assert r.is_error and "every advisor" in tool_error(r)["message"]
    failed = [m for m in messages if "could not answer (cycle 1)" in m]
    assert len(failed) == 3 and all(m.endswith("refused the request (HTTP 400).") for m in failed), messages
    assert not [m for m in messages if "answered (cycle" in m]


async def test_elicitation_declined_becomes_logged_assumptions(mcp_client):
    async def elicit(_ctx, _params):
        return types.ElicitResult(action="decline")

    async with mcp_client(elicit=elicit) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})
    clar = r.structured_content["clarifications"]
    assert [c["status"] for c in clar] == ["declined", "declined"]
    assert r.structured_content["assumptions"] == [c["assumption"] for c in clar]


async def test_a_client_without_elicitation_gets_assumptions_and_open_questions(mcp_client):
    async with mcp_client() as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})
    data = r.structured_content
    assert [c["status"] for c in data["clarifications"]] == ["assumed", "assumed"]
    assert len(data["assumptions"]) == 2 and data["clarifications"][0]["question"] in data["open_questions"]
    assert "Assumed:" in r.content[0].text and "Open questions:" in r.content[0].text


async def test_each_list_of_the_compact_text_has_its_label(mcp_client):
    """Markdown joins lists separated only by a blank line: the personas' positions read as more risks unless each
    list follows a line of its own (the text the agent-mode tools and the Council custom agent show)."""
    async with mcp_client() as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"})
    lines = r.content[0].text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("- ") and not lines[i - 1].startswith("- ")]
    assert len(starts) >= 4
    for i in starts:
        assert lines[i - 1].strip(), f"a list after a blank line joins the list above it: {lines[i]!r}"
    assert "Positions:\n- **" in r.content[0].text


@pytest.mark.parametrize("name, arguments, code, field", [
    ("council_consult", {}, "validation", "user_problem"),
    ("council_consult", {"user_problem": PROBLEM, "depth": "epic"}, "validation", "depth"),
    ("council_consult", {"user_problem": PROBLEM, "selected_personas": ["Chef"]}, "validation",
     "selected_personas.0"),
    ("persona_consult", {"user_problem": PROBLEM, "persona_name": "Chef"}, "validation", "persona_name"),
    ("council_define_personas", {"overrides": {"Devil's Advocate": {"constraints": ["Be nice."]}}}, "validation",
     "overrides.Devil's Advocate.constraints"),
    ("council_define_personas", {"confirm": "draft-123"}, "validation", "confirm"),
])
async def test_bad_input_is_a_tool_error_with_the_contract_shape(mcp_client, name, arguments, code, field):
    async with mcp_client() as s:
        r = await s.call_tool(name, arguments)
        error = tool_error(r)
        assert error["code"] == code and error["message"] and field in error["details"]["fields"], error
        assert r.content[0].text.startswith(f"Council {code} error:")
        assert (await s.list_tools()).tools  # still serving


async def test_an_unknown_tool_is_a_protocol_error_listing_the_tools(mcp_client):
    async with mcp_client() as s:
        with pytest.raises(MCPError) as refused:
            await s.call_tool("council_summon", {})
        error = refused.value.error
        assert error.code == -32602 and error.message == "Unknown tool: council_summon"
        assert error.data["code"] == "validation" and error.data["details"]["fields"] == {"name": "unknown tool"}
        listed = [t.name for t in (await s.list_tools()).tools]  # still serving
        assert error.data["details"]["valid"] == listed  # exactly the tools listed (no council_decisions here)


async def test_cancelling_mid_consult_stops_every_model_call(mcp_client, tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    script = {"trace": str(trace), "rules": [{"when": {"schema": "PersonaReply"}, "delay": 5.0}]}
    async with mcp_client(script=script) as s:
        lines = await cancel_mid_call(s, "council_consult", {"user_problem": PROBLEM}, trace=trace,
                                      started_when="thinking", cancelled_calls=1)
        personas = [x for x in lines if x["purpose"] != "clarifier"]
        begun = sorted(x["purpose"] for x in personas if x["event"] == "start")
        assert begun and begun == sorted(x["purpose"] for x in personas if x["event"] == "cancelled")
        assert not [x for x in personas if x["event"] == "end"]
        assert (await s.list_tools()).tools  # the server carries on


async def test_the_consult_states_its_cost_in_progress_and_keeps_its_budget(mcp_client):
    messages: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with mcp_client() as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief", "max_model_calls": 5},
                              progress_callback=on_progress)
        too_small = await s.call_tool("council_consult", {"user_problem": PROBLEM, "max_model_calls": 2})
    assert not r.is_error
    cost = [m for m in messages if m.startswith("💰 About")]
    assert cost and "to fit the budget of 5 model calls" in cost[0], messages
    assert messages.index(cost[0]) < next(i for i, m in enumerate(messages) if "answered (cycle" in m)
    result = r.structured_content
    assert result["model_calls"] == sum(result["calls_by_model"].values()) <= result["max_model_calls"] <= 5
    assert "max_model_calls" in json.dumps(tool_error(too_small)["details"])


async def test_progress_carries_the_answer_as_it_comes_in_pieces_not_all_of_it_each_time(mcp_client):
    """Before: each progress line held the whole answer so far (quadratic in its length). Now the first line starts
    it and each next one carries only what is new; joined, they are the recommendation."""
    messages: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with mcp_client(script={"chunk": 4}) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief"},
                              progress_callback=on_progress)
    recommendation = r.structured_content["synthesis"]["recommendation"]
    first, rest = "The council's answer so far: ", "The council's answer, continued: "
    pieces = [m for m in messages if m.startswith((first, rest))]
    assert len(pieces) >= 5 and pieces[0].startswith(first) and all(p.startswith(rest) for p in pieces[1:])
    said = " ".join([pieces[0].removeprefix(first), *(p.removeprefix(rest) for p in pieces[1:])])
    assert recommendation.startswith(said) and len(said.split()) >= len(recommendation.split()) - 1  # whole words
    sent = sum(len(p) for p in pieces)
    assert sent <= len(recommendation) + len(rest) * len(pieces), (sent, len(recommendation), len(pieces))
