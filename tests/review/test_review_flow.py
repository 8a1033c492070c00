"""A review end to end on the scripted provider: the seed's example request, concurrency, the debate round,
rule-based outcomes, infrastructure failures as errors, truncation in the notes, the markdown."""

from __future__ import annotations

import json
import time

import anyio
import pytest
from review_helpers import (
    DECLARE_PASS_PANEL,
    FINAL_REPLIES,
    IMPLAUSIBLE,
    LEAK,
    SEED_DECISION_KEYS,
    SEED_REQUEST,
    SEED_VERDICT_KEYS,
    SUMMARY,
    expected_axes,
    request,
    role_reply,
    rule,
    seed_story_script,
)

from council.present.review import decision_markdown
from council.review.requests import parse_request
from council.review.run import ReviewFailed

SEED = parse_request(SEED_REQUEST)


async def test_the_seed_request_end_to_end_reproduces_the_seed_decision(scripted):
    sr = scripted(seed_story_script())
    d = await sr.review(SEED)
    assert d.request_id == "req_123456789" and d.final_outcome.value == "REJECT"
    assert d.summary_reasoning == SUMMARY  # the only text the chair's model writes
    assert d.axis_scores.model_dump() == expected_axes(FINAL_REPLIES)
    assert d.axis_scores.overfitting == 2.7
    assert d.blocking_issues == [
        f"Quant Researcher: {LEAK}",
        "Quant Researcher: failed the check \u201cIs the out-of-sample data strictly separated from everything used "
        "to choose parameters?\u201d: item 1 fails",
        f"Realism Checker: {IMPLAUSIBLE}",
        "Risk Officer: Drawdown figures rest on the leaky OOS window."]
    assert d.next_steps == ["Refactor validation script to enforce strict Train/Test split.", "Re-run backtest.",
                            "Add realistic slippage.", "Re-run the stress test on a clean split.",
                            "Report Monte Carlo spread per volatility regime."]
    assert [v.role for v in d.verdicts] == DECLARE_PASS_PANEL
    assert [v.verdict.value for v in d.verdicts] == ["NEEDS_MORE_INFO", "REJECT", "REJECT", "REJECT", "APPROVE"]
    a = d.audit
    assert a.rule == "blocking_issues" and a.chair == "model" and a.missing_artifacts == {}
    assert a.debate.held and a.debate.changed == ["Risk Officer"] and a.debate.first_round["Risk Officer"].value == \
        "APPROVE"
    assert [s.role for s in a.panel] == DECLARE_PASS_PANEL
    assert a.panel[0].reason.startswith("A pass is exactly where an overfit result would slip through")
    assert a.models["Chair"] == "scripted:scripted"
    assert d.notes[0] == "Outcome by rule 1 (blocking_issues): any blocking issue means REJECT (4 blocking issues)."
    assert any("one debate round" in n and "Risk Officer APPROVE \u2192 REJECT" in n for n in d.notes)
    wire = d.to_wire()
    assert set(wire) == SEED_DECISION_KEYS | {"notes", "verdicts", "audit"}
    assert all(set(v) == SEED_VERDICT_KEYS | {"blocking_issues", "axis_scores"} for v in wire["verdicts"])


async def test_the_debate_round_shows_each_role_the_others_concerns(scripted):
    sr = scripted(seed_story_script())
    await sr.review(SEED)
    first, second = sr.prompts("Risk Officer", 1), sr.prompts("Risk Officer", 2)
    assert len(first) == 1 and len(second) == 1
    assert "council disagrees" not in first[0] and LEAK not in first[0]
    assert "Your first verdict was APPROVE" in second[0]
    assert f"- Quant Researcher: REJECT (confidence 0.90). blocking: {LEAK}" in second[0]
    assert "- Risk Officer:" not in second[0]  # a role does not see itself as a peer
    assert len(sr.prompts("Chair")) == 1


async def test_agreeing_roles_hold_no_debate(scripted):
    sr = scripted()  # every role approves
    d = await sr.review(SEED)
    assert (d.final_outcome.value, d.audit.rule, d.audit.debate.held) == ("APPROVE", "all_approve", False)
    assert all(len(sr.prompts(role)) == 1 for role in DECLARE_PASS_PANEL)
    assert d.blocking_issues == [] and d.next_steps == []


async def test_roles_answer_concurrently(scripted):
    sr = scripted({"delay": 0.05, "chunk": 400})  # each reply takes a few 50 ms steps
    started = time.perf_counter()
    await sr.review(SEED)
    one_reply = 0.05 * (1 + len(str(role_reply())) // 400)
    elapsed = time.perf_counter() - started
    assert elapsed < 2 * one_reply + 0.5 * len(DECLARE_PASS_PANEL) * one_reply, elapsed
    starts = [k for k, _ in sr.progress[:len(DECLARE_PASS_PANEL) + 1]]
    assert starts == ["panel"] + ["role_started"] * len(DECLARE_PASS_PANEL)  # all start before any verdict


@pytest.mark.parametrize(("change_type", "panel"), [
    ("FREEZE_SPEC", ["Quant Researcher", "Realism Checker", "Risk Officer", "Devil's Advocate"]),
    ("UPDATE_CONFIG", ["Code Reviewer", "Overfitting Auditor", "Risk Officer", "Devil's Advocate"]),
    ("CODE_REFACTOR", ["Code Reviewer", "Quant Researcher", "Devil's Advocate"]),
])
async def test_the_panel_depends_on_the_change_type(scripted, change_type, panel):
    sr = scripted()
    d = await sr.review(parse_request(request(change_type=change_type)))
    assert [s.role for s in d.audit.panel] == [v.role for v in d.verdicts] == panel
    assert all(s.reason for s in d.audit.panel)


async def test_missing_artifacts_a_role_needs_make_it_need_more_info(scripted):
    sr = scripted()
    req = parse_request(request(artifacts={"spec_content": "spec", "diff_content": "diff"}))
    d = await sr.review(req)
    assert (d.final_outcome.value, d.audit.rule) == ("NEEDS_MORE_INFO", "missing_artifacts")
    assert d.audit.missing_artifacts == {"Overfitting Auditor": ["validation_report", "monte_carlo_stats"],
                                         "Quant Researcher": ["validation_report"],
                                         "Realism Checker": ["validation_report"],
                                         "Risk Officer": ["validation_report", "monte_carlo_stats"]}
    assert d.next_steps[:2] == [
        "Provide validation_report (needed by Overfitting Auditor, Quant Researcher, Realism Checker and Risk "
        "Officer).", "Provide monte_carlo_stats (needed by Overfitting Auditor and Risk Officer)."]
    assert "they were not provided: validation_report" in sr.prompts("Quant Researcher")[0]
    assert "Not provided: validation_report, monte_carlo_stats" in sr.prompts("Devil's Advocate")[0]


async def test_a_role_that_needs_more_info_decides_the_outcome(scripted):
    sr = scripted({"rules": [rule("Realism Checker", role_reply("NEEDS_MORE_INFO", 0.7))]})
    d = await sr.review(SEED)
    assert (d.final_outcome.value, d.audit.rule) == ("NEEDS_MORE_INFO", "role_needs_more_info")
    assert d.audit.debate.held  # APPROVE vs NEEDS_MORE_INFO is a disagreement


async def test_a_low_confidence_approval_needs_more_info(scripted):
    sr = scripted({"rules": [rule("Risk Officer", role_reply("APPROVE", 0.3))]})
    d = await sr.review(SEED)
    assert (d.final_outcome.value, d.audit.rule) == ("NEEDS_MORE_INFO", "low_confidence")


@pytest.mark.parametrize("error", ["server", "client"])
async def test_a_role_whose_model_fails_fails_the_review_never_a_verdict(scripted, error):
    sr = scripted({"rules": [{"when": {"schema": "RoleReply", "purpose": "Quant Researcher"}, "error": error}]})
    with pytest.raises(ReviewFailed) as err:
        await sr.review(SEED)
    assert err.value.code.value == "internal" and err.value.details["reason"] == "roles_failed"
    assert list(err.value.details["roles"]) == ["Quant Researcher"]
    assert "scripted" in err.value.details["roles"]["Quant Researcher"]
    assert sr.prompts("Chair") == []  # no decision was made


async def test_garbage_after_one_repair_fails_the_review(scripted):
    sr = scripted({"rules": [rule("Risk Officer", "I think it is fine.")]})
    with pytest.raises(ReviewFailed) as err:
        await sr.review(SEED)
    assert "Risk Officer" in err.value.message and len(sr.prompts("Risk Officer")) == 2  # the reply + one repair


async def test_a_wrong_checklist_length_is_repaired_once(scripted):
    sr = scripted({"rules": [rule("Risk Officer", role_reply(checks=2), times=1)]})
    d = await sr.review(SEED)
    assert len(d.verdicts[3].checklist_results) == 4
    assert "Risk Officer: repaired after one retry." in d.notes


async def test_a_contradictory_verdict_gets_one_repair_request_then_the_rules_read_the_findings(scripted):
    contradiction = role_reply("APPROVE", blocking=["The stop-loss is missing."])
    sr = scripted({"rules": [rule("Risk Officer", contradiction)]})
    d = await sr.review(SEED)
    repairs = [c for c in sr.provider.calls if c.purpose == "Risk Officer" and c.cycle == 1]
    assert len(repairs) == 2 and "an APPROVE cannot list blocking_issues" in repairs[1].messages[-1].content
    assert d.final_outcome.value == "REJECT" and d.blocking_issues == ["Risk Officer: The stop-loss is missing."]
    assert any(n.startswith("Risk Officer: kept as given") for n in d.notes)


async def test_a_failed_debate_reply_keeps_the_first_verdict(scripted):
    script = {"rules": [rule("Realism Checker", role_reply("NEEDS_MORE_INFO", 0.7), cycle=1),
                        {"when": {"schema": "RoleReply", "purpose": "Realism Checker", "cycle": 2}, "error": "client"}]}
    d = await scripted(script).review(SEED)
    assert d.audit.debate.kept_first == ["Realism Checker"]
    assert d.verdicts[2].verdict.value == "NEEDS_MORE_INFO"
    assert "Realism Checker's debate reply failed; its first verdict stands." in d.notes


async def test_a_failed_chair_leaves_a_rules_written_summary_and_says_so(scripted):
    sr = scripted({"rules": [{"when": {"schema": "ChairReply"}, "error": "client"}]})
    d = await sr.review(SEED)
    assert d.audit.chair == "rules"
    assert d.summary_reasoning.startswith("The council APPROVES request req_123456789: every role approved.")
    assert any(n.startswith("The chair's model failed") for n in d.notes)


async def test_large_artifacts_are_budgeted_and_the_cut_is_stated(scripted):
    diff = "".join(f"+ line {i}\n" for i in range(20_000))
    sr = scripted(artifact_budget=4_000)
    d = await sr.review(parse_request(request(artifacts={**SEED_REQUEST["artifacts"], "diff_content": diff})))
    cuts = d.audit.truncated
    assert [c.artifact for c in cuts] == ["diff_content"] and cuts[0].original_chars == len(diff)
    assert cuts[0].kept_chars < 4_000
    assert (f"diff_content was cut to fit the roles' prompts: they saw the first {cuts[0].kept_chars:,} of "
            f"{len(diff):,} characters.") in d.notes
    prompt = sr.prompts("Risk Officer")[0]
    assert "=== diff_content (cut to fit" in prompt and len(prompt) < 8_000


async def test_a_timeout_is_a_failure_not_a_verdict(scripted):
    sr = scripted({"delay": 0.5})
    with pytest.raises(ReviewFailed) as err:
        await sr.review(SEED, timeout=0.2)
    assert err.value.details["reason"] == "timeout"


async def test_cancelling_a_review_stops_every_role_call(scripted):
    sr = scripted({"delay": 0.2})
    with anyio.move_on_after(0.3) as scope:
        await sr.review(SEED)
    assert scope.cancelled_caught and not any(k == "decided" for k, _ in sr.progress)


async def test_the_markdown_puts_blocking_issues_first_and_tables_the_verdicts_and_axes(scripted):
    d = await scripted(seed_story_script()).review(SEED)
    md = decision_markdown(d)
    assert md.startswith("## Council review: \u274c REJECT\n\n_Request `req_123456789` \u00b7 DECLARE_PASS_\n\n"
                         "### Blocking issues\n\n- Quant Researcher: In-sample data leakage")
    assert md.index("### Blocking issues") < md.index(SUMMARY) < md.index("### Verdicts") < md.index("### Axis")
    assert "| Quant Researcher | \u274c REJECT | 0.90 | 1 of 4 failed |" in md
    assert "| Overfitting (10 = none) | **2.7** | 3.0 | 2.0 | 2.0 | 4.0 | 5.0 |" in md
    assert "### Who sat and why" in md and "### Checklists" in md


async def test_a_confidence_written_as_a_percentage_is_read_as_one(scripted):
    """Asked for 0-1, a model that writes 30 means 30 %: a low-confidence approval, as 0.3 is (clamped, it was 1.0 —
    a certain approval), read without a repair call."""
    sr = scripted({"rules": [rule("Risk Officer", role_reply("APPROVE", 30))]})
    d = await sr.review(SEED)
    assert (d.final_outcome.value, d.audit.rule) == ("NEEDS_MORE_INFO", "low_confidence")
    assert next(v for v in d.verdicts if v.role == "Risk Officer").confidence_score == 0.3
    assert len(sr.prompts("Risk Officer", cycle=1)) == 1


@pytest.mark.parametrize("written", ['"30"', '"30%"', "30", "0.3"])
async def test_a_confidence_written_as_a_string_reads_as_the_number_it_says(scripted, written):
    """A model without a grammar that writes the confidence as a string ("30", "30%") means what 30 means: a
    low-confidence approval, read without a repair call (its bounds refused it: a repair, then — a model that wrote
    it again — the review failed for want of the role's verdict)."""
    text = json.dumps(role_reply("APPROVE", 0.123)).replace("0.123", written)
    sr = scripted({"rules": [rule("Risk Officer", text)]})
    d = await sr.review(SEED)
    assert (d.final_outcome.value, d.audit.rule) == ("NEEDS_MORE_INFO", "low_confidence")
    assert next(v for v in d.verdicts if v.role == "Risk Officer").confidence_score == 0.3
    assert len(sr.prompts("Risk Officer", cycle=1)) == 1


async def test_an_axis_score_written_as_nan_is_the_middle_of_the_scale(scripted):
    """NaN (which Python's JSON reads) for an axis score says nothing: 5, the middle of 0-10, as a share's NaN is
    0.5 — it failed the score's bounds (a repair, then the review failed for want of the role's verdict)."""
    text = json.dumps(role_reply("APPROVE", 0.9, (7.123, 7, 7, 7, 7, 7))).replace("7.123", "NaN")
    sr = scripted({"rules": [rule("Risk Officer", text)]})
    d = await sr.review(SEED)
    assert next(v for v in d.verdicts if v.role == "Risk Officer").axis_scores.assumptions == 5.0
    assert d.final_outcome.value == "APPROVE" and len(sr.prompts("Risk Officer", cycle=1)) == 1
    json.dumps(d.to_wire(), allow_nan=False)


async def test_a_confidence_of_ten_beside_scores_out_of_ten_is_a_certain_approval(scripted):
    """A role that scores every axis out of ten and writes its confidence on the same scale, 10, is certain: 1.0 (read
    as 10 %, its surest approval was a low-confidence one — NEEDS_MORE_INFO), as 9 already is."""
    sr = scripted({"rules": [rule("Risk Officer", role_reply("APPROVE", 10, (9,) * 6))]})
    d = await sr.review(SEED)
    assert (d.final_outcome.value, d.audit.rule) == ("APPROVE", "all_approve")
    assert next(v for v in d.verdicts if v.role == "Risk Officer").confidence_score == 1.0


async def test_a_verdict_written_in_lowercase_is_that_verdict(scripted):
    """A model without a grammar writes ``"verdict": "approve"``: an APPROVE, read without a repair call (it failed
    the reply's parse: a repair, then — written again — the review failed for want of the role's verdict)."""
    sr = scripted({"rules": [rule("Risk Officer", {**role_reply("APPROVE", 0.9), "verdict": "approve"})]})
    d = await sr.review(SEED)
    assert (d.final_outcome.value, d.audit.rule) == ("APPROVE", "all_approve")
    assert len(sr.prompts("Risk Officer", cycle=1)) == 1
