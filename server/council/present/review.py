"""A review decision as markdown, blocking issues first (``council review``, the sidecar's ``council/review``, VS
Code's ``/review``), and :func:`decision_text`, the compact rendering an agent reads (the MCP tool's text content
and VS Code's agent-mode tool result); the structured decision carries everything.
"""

from __future__ import annotations

from council.present.text import bullets, cell, numbered, one_line, section
from council.review.models import AXES, ReviewedDecision, RoleVerdict, Verdict

PASS, FAIL, DASH = "\u2705", "\u274c", "\u2014"
MARKS = {Verdict.APPROVE: PASS, Verdict.REJECT: FAIL, Verdict.NEEDS_MORE_INFO: "\u2753"}
AXIS_NAMES = {axis: axis.replace("_", " ").capitalize() for axis in AXES} | {"overfitting": "Overfitting (10 = none)"}
CONCERNS_SHOWN = 2
TEXT_ITEMS = 3  # items per list in the compact rendering


def _verdict_row(v: RoleVerdict) -> str:
    failed = sum(1 for item in v.checklist_results if not item.passed)
    checks = f"{failed} of {len(v.checklist_results)} failed" if v.checklist_results else DASH
    concerns = "; ".join(one_line(c) for c in v.concerns[:CONCERNS_SHOWN])
    if len(v.concerns) > CONCERNS_SHOWN:
        concerns += f" (+{len(v.concerns) - CONCERNS_SHOWN} more)"
    return (f"| {cell(v.role)} | {MARKS[v.verdict]} {v.verdict.value} | {v.confidence_score:.2f} | {checks} | "
            f"{cell(concerns) or DASH} |\n")


def verdicts_table(verdicts: list[RoleVerdict]) -> str:
    head = "| Role | Verdict | Confidence | Checklist | Concerns |\n|---|---|---|---|---|\n"
    return "### Verdicts\n\n" + head + "".join(_verdict_row(v) for v in verdicts) + "\n"


def axes_table(decision: ReviewedDecision) -> str:
    scored = {v.role: v.axis_scores for v in decision.verdicts if v.axis_scores is not None}
    roles = list(scored)
    head = "| Axis | Score | " + " | ".join(cell(r) for r in roles) + " |\n"
    head += "|---|---|" + "---|" * len(roles) + "\n"
    rows = [f"| {AXIS_NAMES[axis]} | **{getattr(decision.axis_scores, axis):.1f}** | "
            + " | ".join(f"{getattr(scored[r], axis):.1f}" for r in roles) + " |\n" for axis in AXES]
    note = ("\n_Each score is the mean of the roles' scores weighted by confidence, three times for the axes in a "
            "role's remit; the weights are in the decision's audit._\n\n")
    return "### Axis scores (0\u201310, 10 best)\n\n" + head + "".join(rows) + note


def checklists(verdicts: list[RoleVerdict]) -> str:
    out = []
    for v in verdicts:
        lines = "".join(f"- {PASS if item.passed else FAIL} {one_line(item.question)} {DASH} {one_line(item.answer)}\n"
                        for item in v.checklist_results)
        actions = section("Required actions", v.required_actions, level=5)
        out.append(f"#### {v.role}: {v.verdict.value}\n\n{lines}\n{actions}")
    return "### Checklists\n\n" + "".join(out) if out else ""


def decision_markdown(decision: ReviewedDecision) -> str:
    """The whole decision for people (blocking issues first)."""
    audit = decision.audit
    out = [f"## Council review: {MARKS[decision.final_outcome]} {decision.final_outcome.value}\n\n",
           f"_Request `{decision.request_id}` \u00b7 {audit.change_type.value}_\n\n",
           section("Blocking issues", decision.blocking_issues),
           f"{decision.summary_reasoning.strip()}\n\n",
           verdicts_table(decision.verdicts),
           axes_table(decision),
           section("Next steps", decision.next_steps, ordered=True)]
    if audit.panel:
        out.append("### Who sat and why\n\n" + "".join(f"- **{s.role}**: {one_line(s.reason)}\n"
                                                       for s in audit.panel) + "\n")
    out.append(section("Notes", decision.notes))
    out.append(checklists(decision.verdicts))
    return "".join(out).strip() + "\n"


def failure_markdown(message: str, roles: dict[str, str] | None = None) -> str:
    """A review that could not be done (never a verdict)."""
    body = numbered([f"{role}: {why}" for role, why in (roles or {}).items()])
    return f"## Council review: could not review\n\n{one_line(message)}\n\n{body}".strip() + "\n"


def _listed(items: list[str], *, ordered: bool = False) -> str:
    """The first few items as a list, and how many more the structured result holds."""
    shown = numbered(items[:TEXT_ITEMS]) if ordered else bullets(items[:TEXT_ITEMS])
    more = f"_(+{len(items) - TEXT_ITEMS} more in the structured result)_\n" if len(items) > TEXT_ITEMS else ""
    return (shown + more).rstrip("\n")


def decision_text(decision: ReviewedDecision) -> str:
    """A few lines an agent can act on: outcome, blocking issues, reasoning, verdicts, axis scores, next steps."""
    audit = decision.audit
    lines = [f"**Council review: {decision.final_outcome.value}** (request `{decision.request_id}`, "
             f"{audit.change_type.value}; rule: {audit.rule})", ""]
    if decision.blocking_issues:
        lines += ["Blocking issues:", _listed(decision.blocking_issues), ""]
    lines += [one_line(decision.summary_reasoning), ""]
    lines.append("Verdicts: " + "; ".join(f"{v.role} {v.verdict.value} ({v.confidence_score:.2f})"
                                          for v in decision.verdicts) + ".")
    lines.append("Axis scores (0\u201310, 10 best): " + ", ".join(
        f"{axis} {getattr(decision.axis_scores, axis):.1f}" for axis in AXES) + ".")
    if decision.next_steps:
        lines += ["", "Next steps:", _listed(decision.next_steps, ordered=True)]
    if audit.truncated:
        cut = ", ".join(f"{c.artifact} ({c.kept_chars:,} of {c.original_chars:,} characters)" for c in audit.truncated)
        lines += ["", f"Cut to fit the roles' prompts: {cut}."]
    return "\n".join(lines).strip() + "\n"
