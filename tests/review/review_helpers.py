"""Shared data for the review-mode tests: the seed's example request, scripted role replies, and the seed's REJECT
story as a script for the deterministic scripted provider."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# Seed 004 §1, verbatim (the seed's placeholder artifact strings included).
SEED_REQUEST: dict[str, Any] = {
    "request_id": "req_123456789",
    "timestamp": "2025-12-09T12:00:00Z",
    "proposer": "QuantResearchAgent_v1",
    "change_type": "DECLARE_PASS",
    "context": {
        "summary": "Declaring that Strategy v2.1 has passed validation based on new OOS tests.",
        "files_changed": ["notes/strategy_evaluation_checklist.md"],
        "key_metrics": {"total_return": 15.4, "sharpe": 1.2, "max_dd": -4.5, "oos_win_rate": 55.0},
    },
    "artifacts": {
        "spec_content": "... markdown string ...",
        "diff_content": "... git diff string ...",
        "validation_report": "... markdown table string ...",
        "monte_carlo_stats": "... json string ...",
    },
}

SEED_DECISION_KEYS = {"request_id", "final_outcome", "axis_scores", "summary_reasoning", "blocking_issues",
                      "next_steps"}
SEED_VERDICT_KEYS = {"role", "verdict", "confidence_score", "checklist_results", "concerns", "required_actions"}
AXES = ("assumptions", "applicability", "code_correctness", "realistic_newness", "overfitting", "implications")

# The contracts' primary axes (personas/*.toml [review].axes), restated here as the specification.
PRIMARY = {
    "Risk Officer": {"implications", "assumptions"},
    "Quant Researcher": {"assumptions", "applicability", "overfitting"},
    "Realism Checker": {"realistic_newness", "applicability", "assumptions"},
    "Code Reviewer": {"code_correctness"},
    "Overfitting Auditor": {"overfitting", "realistic_newness"},
    "Devil's Advocate": {"implications", "assumptions"},
}
DECLARE_PASS_PANEL = ["Overfitting Auditor", "Quant Researcher", "Realism Checker", "Risk Officer",
                      "Devil's Advocate"]


def request(**changes: Any) -> dict[str, Any]:
    """A copy of the seed request with top-level ``changes`` (``artifacts=…`` replaces the whole table)."""
    data = copy.deepcopy(SEED_REQUEST)
    data.update(changes)
    return data


def role_reply(verdict: str = "APPROVE", confidence: float = 0.8, scores: tuple[float, ...] = (7,) * 6, *,
               checks: int = 4, failed: tuple[int, ...] = (), concerns: list[str] | None = None,
               blocking: list[str] | None = None, actions: list[str] | None = None) -> dict[str, Any]:
    """A RoleReply as a model would write it; ``failed`` holds 1-based checklist items that fail."""
    return {
        "checklist": [{"answer": f"item {i} {'fails' if i in failed else 'holds'}", "passed": i not in failed}
                      for i in range(1, checks + 1)],
        "concerns": concerns or [], "blocking_issues": blocking or [], "required_actions": actions or [],
        **{f"score_{axis}": s for axis, s in zip(AXES, scores, strict=True)},
        "verdict": verdict, "confidence_score": confidence,
    }


def rule(role: str, reply: dict[str, Any] | str, cycle: int | None = None, **extra: Any) -> dict[str, Any]:
    when: dict[str, Any] = {"schema": "RoleReply", "purpose": role}
    if cycle is not None:
        when["cycle"] = cycle
    return {"when": when, "reply": reply, **extra}


LEAK = "In-sample data leakage: the OOS window overlaps the tuning window."
IMPLAUSIBLE = "The reported Sharpe of 5.0 on the OOS slice is statistically implausible."
SUMMARY = ("The council REJECTS this proposal. While the code is correct and applicable, the Quant Researcher and "
           "Realism Checker flagged significant overfitting risks.")

# The seed's story: two roles find blocking issues, two approve, one needs more information; they disagree, so a
# debate round runs, and the Risk Officer moves from APPROVE to REJECT after reading the leakage concern.
FINAL_REPLIES: dict[str, dict[str, Any]] = {
    "Overfitting Auditor": role_reply("NEEDS_MORE_INFO", 0.6, (6, 7, 8, 4, 3, 6),
                                      concerns=["The Monte Carlo stats do not show the spread per regime."],
                                      actions=["Report Monte Carlo spread per volatility regime."]),
    "Quant Researcher": role_reply("REJECT", 0.9, (5, 9, 9, 4, 2, 7), failed=(1,), blocking=[LEAK],
                                   concerns=["OOS win rate is only 39% on the untouched slice."],
                                   actions=["Refactor validation script to enforce strict Train/Test split.",
                                            "Re-run backtest."]),
    "Realism Checker": role_reply("REJECT", 0.85, (7, 10, 9, 3, 2, 7), blocking=[IMPLAUSIBLE],
                                  actions=["Re-run backtest.", "Add realistic slippage."]),
    "Risk Officer": role_reply("REJECT", 0.7, (8, 10, 9, 5, 4, 7), blocking=["Drawdown figures rest on the "
                                                                           "leaky OOS window."],
                               actions=["Re-run the stress test on a clean split."]),
    "Devil's Advocate": role_reply("APPROVE", 0.5, (8, 9, 9, 6, 5, 8), checks=3,
                                   concerns=["Nobody tested a regime change."]),
}


def seed_story_script() -> dict[str, Any]:
    rules = [rule("Risk Officer", role_reply("APPROVE", 0.8, (8, 10, 9, 5, 4, 7)), cycle=1)]
    rules += [rule(name, reply) for name, reply in FINAL_REPLIES.items()]
    rules.append({"when": {"schema": "ChairReply"}, "reply": {"summary_reasoning": SUMMARY}})
    return {"rules": rules}


def expected_axes(replies: dict[str, dict[str, Any]]) -> dict[str, float]:
    """The documented formula, computed independently: Σ w·s / Σ w with w = confidence × (3 if primary else 1)."""
    out = {}
    for axis in AXES:
        num = den = 0.0
        for role, reply in replies.items():
            w = reply["confidence_score"] * (3 if axis in PRIMARY[role] else 1)
            num += w * reply[f"score_{axis}"]
            den += w
        out[axis] = round(num / den, 1)
    return out


COUNCIL = [sys.executable, "-m", "council"]


def run_council(*args: str, stdin: str = "", timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """``council …`` as a subprocess, as an agent would run it."""
    return subprocess.run([*COUNCIL, *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "NO_COLOR": "1"})


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
