"""The chair's written rules as pure functions: outcome precedence, blocking issues, the axis-score formula, the
next steps; and the artifact budget."""

from __future__ import annotations

import pytest
from review_helpers import AXES

from council.review import rules
from council.review.models import AxisScores, ChecklistResult, RoleVerdict, Verdict
from council.review.prompts import MIN_SHARE, cut, fit_artifacts, shares

BLOCKING_Q = "Is the maximum drawdown within the stated risk limit?"
OTHER_Q = "Was the change stress-tested?"


def verdict(role: str = "Risk Officer", kind: str = "APPROVE", confidence: float = 0.8, *, scores=None,
            blocking=(), concerns=(), actions=(), failed=()) -> RoleVerdict:
    checklist = [ChecklistResult(question=q, answer="a", passed=q not in failed) for q in (BLOCKING_Q, OTHER_Q)]
    return RoleVerdict(role=role, verdict=Verdict(kind), confidence_score=confidence, checklist_results=checklist,
                       blocking_issues=list(blocking), concerns=list(concerns), required_actions=list(actions),
                       axis_scores=AxisScores(**dict(zip(AXES, scores or (7,) * 6, strict=True))))


def decide(verdicts, missing=None):
    blockers = [b for v in verdicts for b in rules.blockers_of(v, [BLOCKING_Q])]
    return rules.outcome(verdicts, blockers, missing or {})


def test_all_approve_with_confidence_is_approve():
    assert decide([verdict(), verdict("Quant Researcher", confidence=0.5)]) == (Verdict.APPROVE, "all_approve")


def test_any_blocking_issue_rejects_even_when_every_role_approves_or_artifacts_are_missing():
    stated = verdict("Quant Researcher", "APPROVE", blocking=["Leakage."])
    assert decide([verdict(), stated], {"Risk Officer": ["monte_carlo_stats"]}) == (Verdict.REJECT,
                                                                                   "blocking_issues")


def test_a_failed_blocking_checklist_item_rejects_but_a_failed_ordinary_one_does_not():
    assert decide([verdict(failed=[BLOCKING_Q])]) == (Verdict.REJECT, "blocking_issues")
    assert decide([verdict(failed=[OTHER_Q])]) == (Verdict.APPROVE, "all_approve")


def test_missing_artifacts_need_more_info_before_role_verdicts_are_read():
    both = [verdict(), verdict("Quant Researcher", "NEEDS_MORE_INFO")]
    assert decide([verdict()], {"Risk Officer": ["validation_report"]}) == (Verdict.NEEDS_MORE_INFO,
                                                                           "missing_artifacts")
    assert decide(both, {"Risk Officer": ["validation_report"]})[1] == "missing_artifacts"
    assert decide([verdict()], {"Risk Officer": []}) == (Verdict.APPROVE, "all_approve")


def test_a_role_needing_more_info_makes_the_outcome_need_more_info():
    assert decide([verdict(), verdict("Realism Checker", "NEEDS_MORE_INFO")]) == (Verdict.NEEDS_MORE_INFO,
                                                                                 "role_needs_more_info")


@pytest.mark.parametrize(("confidence", "expected"), [(0.49, "low_confidence"), (0.5, "all_approve")])
def test_an_unsure_approval_is_not_an_approval(confidence, expected):
    assert decide([verdict(), verdict("Devil's Advocate", confidence=confidence)])[1] == expected


def test_a_rejection_always_carries_a_blocking_issue():
    stated = rules.blockers_of(verdict(kind="REJECT", blocking=["Leak."], concerns=["c"]), [BLOCKING_Q])
    assert [(b.kind, b.text) for b in stated] == [("stated", "Leak.")]
    from_concerns = rules.blockers_of(verdict(kind="REJECT", concerns=["Too risky.", " "]), [BLOCKING_Q])
    assert [(b.kind, b.text) for b in from_concerns] == [("stated", "Too risky.")]
    bare = rules.blockers_of(verdict(kind="REJECT"), [BLOCKING_Q])
    assert [b.kind for b in bare] == ["unexplained_reject"]
    assert decide([verdict(kind="REJECT")]) == (Verdict.REJECT, "blocking_issues")
    checklist = rules.blockers_of(verdict(kind="REJECT", failed=[BLOCKING_Q]), [BLOCKING_Q])
    assert [(b.kind, b.text, b.answer) for b in checklist] == [("checklist", BLOCKING_Q, "a")]


def test_axis_scores_follow_the_documented_formula():
    risk = verdict("Risk Officer", confidence=0.8, scores=(8, 10, 9, 5, 4, 7))
    quant = verdict("Quant Researcher", confidence=0.4, scores=(4, 6, 9, 5, 2, 3))
    primary = {"Risk Officer": ["implications", "assumptions"], "Quant Researcher": ["overfitting"]}
    weights = rules.axis_weights([risk, quant], primary)
    assert weights["implications"] == {"Risk Officer": 2.4, "Quant Researcher": 0.4}
    assert weights["overfitting"] == {"Risk Officer": 0.8, "Quant Researcher": 1.2}
    scores = rules.axis_scores([risk, quant], weights)
    assert scores.implications == round((2.4 * 7 + 0.4 * 3) / 2.8, 1) == 6.4
    assert scores.overfitting == round((0.8 * 4 + 1.2 * 2) / 2.0, 1) == 2.8
    assert scores.code_correctness == 9.0


def test_zero_confidence_everywhere_falls_back_to_expertise_weights():
    a = verdict("A", confidence=0.0, scores=(10,) * 6)
    b = verdict("B", confidence=0.0, scores=(0,) * 6)
    weights = rules.axis_weights([a, b], {"A": ["overfitting"]})
    assert weights["overfitting"] == {"A": 3.0, "B": 1.0}
    assert rules.axis_scores([a, b], weights).overfitting == 7.5
    assert rules.axis_scores([a, b], weights).assumptions == 5.0


def test_next_steps_put_blocking_roles_first_and_say_each_action_once():
    ok = verdict("Risk Officer", actions=["Run a stress test.", "Re-run backtest."])
    bad = verdict("Quant Researcher", "REJECT", blocking=["Leak."], actions=["Fix the split.", "re-run  BACKTEST."])
    blockers = rules.blockers_of(bad, [])
    assert rules.next_steps([ok, bad], blockers) == ["Fix the split.", "re-run  BACKTEST.", "Run a stress test."]


def test_budget_shares_are_water_filled():
    assert shares({"a": 100, "b": 100}, 1000) == {"a": 100, "b": 100}
    assert shares({"small": 100, "big": 5000, "huge": 9000}, 3000) == {"small": 100, "big": 1450, "huge": 1450}
    assert shares({"a": 5000, "b": 5000}, 100) == {"a": MIN_SHARE, "b": MIN_SHARE}


def test_cuts_end_at_a_line_break_when_one_is_near_and_are_recorded():
    text = "\n".join(f"line {i:04d}" for i in range(1000))  # 10 chars per line with the break
    assert cut(text, 95) == text[:89]
    assert cut("x" * 50, 20) == "x" * 20
    kept, cuts = fit_artifacts({"diff_content": text, "spec_content": "short"}, 1000)
    assert kept["spec_content"] == "short" and len(kept["diff_content"]) <= 995
    assert [(c.artifact, c.original_chars, c.kept_chars) for c in cuts] == [
        ("diff_content", len(text), len(kept["diff_content"]))]
