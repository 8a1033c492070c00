"""``council_review`` on ``council mcp``, driven by the official MCP SDK client: its schemas (seed 004's
CouncilRequest in, the decision out), the seed's example request end to end with progress per stage, the rule-based
outcomes, budgeted artifacts, field-level refusals, a failed role as a tool error (never a verdict), and
cancellation mid-review."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.mcp_tools.conftest import cancel_mid_call, tool_error
from tests.review.review_helpers import FINAL_REPLIES, SEED_REQUEST, SUMMARY, expected_axes, seed_story_script

REFACTOR = {
    "request_id": "refactor-42",
    "timestamp": "2026-01-05T09:30:00Z",
    "proposer": "CodingAgent",
    "change_type": "CODE_REFACTOR",
    "context": {"summary": "Extract the fee model into its own module.", "files_changed": ["src/fees.py"]},
    "artifacts": {"diff_content": "diff --git a/src/fees.py b/src/fees.py\n+def fee(x):\n+    return 0.001 * x\n"},
}


async def _review(session, arguments, progress=None):
    async def on_progress(done: float, _total: float | None, message: str | None) -> None:
        if progress is not None:
            progress.append((done, message))

    return await session.call_tool("council_review", arguments, progress_callback=on_progress)


async def test_the_review_tool_is_listed_with_the_seed_schemas(mcp_client):
    async with mcp_client() as s:
        tool = {t.name: t for t in (await s.list_tools()).tools}["council_review"]
    assert tool.title == "Council review of a change"
    assert tool.annotations.read_only_hint is True and tool.annotations.idempotent_hint is False
    assert tool.annotations.destructive_hint is False and tool.annotations.open_world_hint is False
    schema = tool.input_schema
    assert schema["required"] == ["request_id", "timestamp", "proposer", "change_type", "context"]
    assert schema["properties"]["change_type"]["enum"] == ["DECLARE_PASS", "FREEZE_SPEC", "UPDATE_CONFIG",
                                                           "CODE_REFACTOR"]
    assert set(schema["properties"]["artifacts"]["properties"]) == {"spec_content", "diff_content",
                                                                    "validation_report", "monte_carlo_stats"}
    out = tool.output_schema
    assert {"request_id", "final_outcome", "axis_scores", "summary_reasoning", "verdicts", "audit"} <= set(
        out["required"])
    checklist = out["properties"]["verdicts"]["items"]["properties"]["checklist_results"]["items"]
    assert "pass" in checklist["required"]  # the seed's key, not the Python name
    assert "$ref" not in json.dumps([schema, out])


async def test_the_seed_request_end_to_end_with_progress_per_stage(mcp_client):
    progress: list[tuple[float, str | None]] = []
    async with mcp_client(script=seed_story_script()) as s:
        r = await _review(s, SEED_REQUEST, progress)
    assert not r.is_error  # the SDK client validated structuredContent against the outputSchema
    d = r.structured_content
    assert d["final_outcome"] == "REJECT" and d["summary_reasoning"] == SUMMARY
    assert d["axis_scores"] == expected_axes(FINAL_REPLIES)
    assert [v["role"] for v in d["verdicts"]] == list(FINAL_REPLIES)
    assert d["verdicts"][1]["checklist_results"][0]["pass"] is False
    assert d["audit"]["rule"] == "blocking_issues" and d["audit"]["debate"]["changed"] == ["Risk Officer"]
    text = r.content[0].text
    assert text.startswith("**Council review: REJECT** (request `req_123456789`, DECLARE_PASS; rule: "
                           "blocking_issues)")
    assert text.index("Blocking issues:") < text.index(SUMMARY) < text.index("Verdicts: ")
    assert "Risk Officer REJECT (0.70)" in text and len(text) < 3000
    messages = [m for _, m in progress]
    assert [n for n, _ in progress] == list(range(1, len(progress) + 1))
    assert messages[0].startswith("Review panel for DECLARE_PASS: Overfitting Auditor, Quant Researcher")
    assert "Quant Researcher: REJECT (confidence 0.90)." in messages
    assert "The roles disagree: one debate round, each role sees the others' concerns." in messages
    assert messages[-1] == "By the rules: REJECT (blocking_issues). The chair writes the reasoning\u2026"


async def test_a_refactor_with_its_diff_is_approved_and_without_it_needs_more_info(mcp_client):
    no_diff = copy.deepcopy(REFACTOR) | {"request_id": "refactor-43", "artifacts": {}}
    async with mcp_client() as s:
        approved = await _review(s, REFACTOR)
        missing = await _review(s, no_diff)
    d = approved.structured_content
    assert d["final_outcome"] == "APPROVE" and d["audit"]["rule"] == "all_approve"
    assert [seat["role"] for seat in d["audit"]["panel"]] == ["Code Reviewer", "Quant Researcher",
                                                              "Devil's Advocate"]
    m = missing.structured_content
    assert m["final_outcome"] == "NEEDS_MORE_INFO" and m["audit"]["rule"] == "missing_artifacts"
    assert m["audit"]["missing_artifacts"] == {"Code Reviewer": ["diff_content"], "Quant Researcher": ["diff_content"]}
    assert m["next_steps"][0] == "Provide diff_content (needed by Code Reviewer and Quant Researcher)."
    assert "NEEDS_MORE_INFO" in missing.content[0].text


async def test_a_large_diff_is_cut_to_the_budget_and_the_decision_says_so(mcp_client):
    big = copy.deepcopy(REFACTOR)
    big["artifacts"]["diff_content"] = "".join(f"+line {i}: x = {i}\n" for i in range(5000))
    async with mcp_client() as s:
        r = await _review(s, big)
    d = r.structured_content
    (cut,) = d["audit"]["truncated"]
    assert cut["artifact"] == "diff_content" and cut["original_chars"] == len(big["artifacts"]["diff_content"])
    assert cut["kept_chars"] <= 16_000
    assert any(note.startswith("diff_content was cut to fit the roles' prompts") for note in d["notes"])
    assert f"diff_content ({cut['kept_chars']:,} of {cut['original_chars']:,} characters)" in r.content[0].text


@pytest.mark.parametrize("change, field", [
    ({"change_type": "SHIP_IT"}, "change_type"),
    ({"request_id": "../escape"}, "request_id"),
    ({"context": {"summary": ""}}, "context.summary"),
    ({"context": {"summary": "x", "key_metrics": {"sharpe": "high"}}}, "context.key_metrics.sharpe"),
    ({"artifacts": {"diff_content": 42}}, "artifacts.diff_content"),
    ({"artifacts": {"notebook": {"cells": []}}}, "artifacts"),
    ({"reviewer": "me"}, "reviewer"),
])
async def test_a_bad_request_is_a_tool_error_field_by_field(mcp_client, change, field):
    async with mcp_client() as s:
        r = await _review(s, {**REFACTOR, **change})
        assert r.is_error
        error = tool_error(r)
        assert error["code"] == "validation" and field in error["details"]["fields"], error
        assert r.content[0].text.startswith("Council validation error:")
        assert (await s.list_tools()).tools  # still serving


async def test_a_role_whose_model_fails_makes_an_error_never_a_verdict(mcp_client):
    script = {"rules": [{"when": {"schema": "RoleReply", "purpose": "Code Reviewer"}, "error": "client"}]}
    async with mcp_client(script=script) as s:
        r = await _review(s, REFACTOR)
    error = tool_error(r)
    assert set(error) == {"code", "message", "details"}
    assert error["code"] == "internal" and error["details"]["reason"] == "roles_failed"
    assert list(error["details"]["roles"]) == ["Code Reviewer"]
    assert r.content[0].text.startswith("Council internal error: could not review: no verdict from Code Reviewer")
    assert "APPROVE" not in r.content[0].text and "REJECT" not in r.content[0].text


async def test_cancelling_mid_review_stops_every_role_call(mcp_client, tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    script = {"trace": str(trace), "rules": [{"when": {"schema": "RoleReply"}, "delay": 5.0}]}
    async with mcp_client(script=script) as s:
        lines = await cancel_mid_call(s, "council_review", REFACTOR, trace=trace, started_when="is reviewing",
                                      cancelled_calls=3)
        begun = sorted(x["purpose"] for x in lines if x["event"] == "start")
        assert begun == ["Code Reviewer", "Devil's Advocate", "Quant Researcher"]
        assert begun == sorted(x["purpose"] for x in lines if x["event"] == "cancelled")
        assert not [x for x in lines if x["event"] == "end"]
        assert "council_review" in [t.name for t in (await s.list_tools()).tools]  # the server carries on
