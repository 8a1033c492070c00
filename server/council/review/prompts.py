"""Prompt texts for the review's model calls (model-facing; nothing here is shown to people).

Every role sees the same request brief first, so a backend's prefix cache can reuse it; then its checklist and, in
the debate round, the other roles' verdicts. Artifacts share the budget by water-filling: those under an equal share
keep all their text and give the rest to the others; the large ones split what is left, each cut keeping its head (a
diff's first files, a report's summary table) and recorded as a :class:`Truncation` the decision's notes state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from council.providers.base import ChatMessage
from council.review.models import ARTIFACTS, CouncilRequest, RoleVerdict, Truncation
from council.review.panel import SeatedRole
from council.session.calls.formats import format_block
from council.session.calls.prompts import clip

DEFAULT_BUDGET = 16_000  # characters of artifacts in one role prompt (about 4k tokens)
MIN_SHARE = 400  # no artifact is cut below this, even when many compete


def shares(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Characters each artifact may keep under ``total`` (water-filling; see the module docstring)."""
    left = max(total, 0)
    pending = dict(sizes)
    out: dict[str, int] = {}
    while pending:
        share = left // len(pending)
        small = {name: size for name, size in pending.items() if size <= share}
        if not small:
            for name in pending:
                out[name] = max(min(share, sizes[name]), min(MIN_SHARE, sizes[name]))
            break
        for name, size in small.items():
            out[name] = size
            left -= size
            del pending[name]
    return {name: out[name] for name in sizes}


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, ending at a line break when one is near."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    newline = head.rfind("\n")
    return head[:newline] if newline >= limit * 0.8 else head


def fit_artifacts(artifacts: dict[str, str], total: int = DEFAULT_BUDGET) -> tuple[dict[str, str], list[Truncation]]:
    """The artifacts as the roles will see them, and what was cut."""
    limits = shares({name: len(text) for name, text in artifacts.items()}, total)
    cuts: list[Truncation] = []
    return {name: _kept(name, text, limits[name], cuts) for name, text in artifacts.items()}, cuts


def _kept(name: str, text: str, limit: int, cuts: list[Truncation]) -> str:
    kept = cut(text, limit)
    if len(kept) < len(text):
        cuts.append(Truncation(artifact=name, original_chars=len(text), kept_chars=len(kept)))
    return kept


SUMMARY_BUDGET, FILES_SHOWN, EXTRA_CONTEXT_BUDGET = 3_000, 60, 2_000
SOUL_BUDGET, RULES_BUDGET, PEER_BUDGET, POINT_BUDGET = 600, 700, 900, 220

AXIS_GUIDE = (
    "Score each axis from 0 (worst) to 10 (best): assumptions = the assumptions are stated and sound; "
    "applicability = the result applies where it will be used; code_correctness = the code and configuration are "
    "correct; realistic_newness = the claimed gain is realistic and genuinely new; overfitting = free of "
    "overfitting and data snooping (10 = no sign of it); implications = the consequences and risks are acceptable."
)
VERDICTS = (
    "Verdict: APPROVE only if every checklist item that matters passes; REJECT when something must be fixed "
    "first (name it in blocking_issues); NEEDS_MORE_INFO when the evidence given cannot settle it."
)
RULE_TEXT = {
    "blocking_issues": "at least one blocking issue was found, and any blocking issue means REJECT",
    "missing_artifacts": "a role needs an artifact the proposal did not include",
    "role_needs_more_info": "at least one role could not decide from the evidence given",
    "low_confidence": "an approval was given with low confidence",
    "all_approve": "every role approved with enough confidence",
}


@dataclass(frozen=True)
class Brief:
    """The request as every role reads it, and what had to be cut to fit."""

    text: str
    truncated: list[Truncation]


def request_brief(request: CouncilRequest, budget: int) -> Brief:
    ctx = request.context
    cuts: list[Truncation] = []
    summary = _kept("context.summary", ctx.summary.strip(), SUMMARY_BUDGET, cuts)
    lines = [f"Change under review: {request.change_type.value}, proposed by {request.proposer} "
             f"(request {request.request_id}, {request.timestamp.isoformat()}).", f"Summary: {summary}"]
    if ctx.files_changed:
        shown = ", ".join(ctx.files_changed[:FILES_SHOWN])
        more = len(ctx.files_changed) - FILES_SHOWN
        lines.append(f"Files changed: {shown}" + (f" (and {more} more)" if more > 0 else ""))
    if ctx.key_metrics:
        lines.append("Key metrics: " + ", ".join(f"{k} = {v:g}" for k, v in ctx.key_metrics.items()))
    if ctx.model_extra:
        extra = json.dumps(ctx.model_extra, ensure_ascii=False, default=str)
        lines.append("Other context: " + _kept("context (other keys)", extra, EXTRA_CONTEXT_BUDGET, cuts))
    provided = request.artifacts.provided()
    kept, artifact_cuts = fit_artifacts(provided, budget)
    cut_names = {c.artifact: c for c in artifact_cuts}
    for name, text in kept.items():
        note = ""
        if name in cut_names:
            c = cut_names[name]
            note = f" (cut to fit: the first {c.kept_chars} of {c.original_chars} characters)"
        lines.append(f"\n=== {name}{note} ===\n{text}\n=== end of {name} ===")
    absent = [name for name in ARTIFACTS if name not in provided]
    if absent:
        lines.append("Not provided: " + ", ".join(absent))
    return Brief(text="\n".join(lines), truncated=cuts + artifact_cuts)


def _system(schema: dict[str, Any], seated: SeatedRole) -> ChatMessage:
    c = seated.contract
    role = (f"You are the {c.name} on a review council that judges a proposed change to a quantitative research "
            f"project.\n{clip(c.soul, SOUL_BUDGET)}\nYour rules: " + clip(" ".join(c.constraints), RULES_BUDGET) +
            f"\nYou sit on this review because: {seated.reason}\n{AXIS_GUIDE}\n{VERDICTS}")
    return ChatMessage(role="system", content=format_block(schema) + "\n\n" + role)


def checklist_text(seated: SeatedRole, missing: list[str]) -> str:
    items = "\n".join(f"{i}. {item.question}" + (" (must pass)" if item.blocking else "")
                      for i, item in enumerate(seated.role.checklist, 1))
    text = f"Your checklist (answer every item, in order, in 'checklist'):\n{items}"
    if missing:
        text += ("\nYou need these artifacts and they were not provided: " + ", ".join(missing) +
                 ". Say what you cannot judge without them.")
    return text


def peer_lines(own: str, verdicts: list[RoleVerdict]) -> str:
    lines = []
    for v in verdicts:
        if v.role == own:
            continue
        points = [f"blocking: {clip(x, POINT_BUDGET)}" for x in v.blocking_issues[:2]]
        points += [f"concern: {clip(x, POINT_BUDGET)}" for x in v.concerns[:3]]
        lines.append(clip(f"- {v.role}: {v.verdict.value} (confidence {v.confidence_score:.2f}). "
                          + "; ".join(points), PEER_BUDGET))
    return "\n".join(lines)


def role_messages(seated: SeatedRole, brief: Brief, schema: dict[str, Any], missing: list[str],
                  own: RoleVerdict | None = None, panel: list[RoleVerdict] | None = None) -> list[ChatMessage]:
    """A role's first answer, or (with ``own`` and ``panel``) its answer in the debate round."""
    user = brief.text + "\n\n" + checklist_text(seated, missing)
    if own is not None and panel is not None:
        user += (f"\n\nThe council disagrees. Your first verdict was {own.verdict.value} (confidence "
                 f"{own.confidence_score:.2f}). The other roles said:\n{peer_lines(seated.name, panel)}\n"
                 "Answer again in full. Keep your verdict unless one of their concerns or a piece of evidence "
                 "changes it; if it does, say which in concerns.")
    return [_system(schema, seated), ChatMessage(role="user", content=user)]


def chair_messages(brief: Brief, schema: dict[str, Any], outcome: str, rule: str, verdicts: list[RoleVerdict],
                   blocking: list[str], scores: dict[str, float]) -> list[ChatMessage]:
    system = ("You chair a review council. The outcome is fixed by the council's written rules and is final; you "
              "only explain it. Write summary_reasoning: two to four sentences that state the outcome and the "
              "main reasons, citing the roles and the axis scores below. Do not change, soften or question the "
              "outcome and do not add findings the roles did not make.")
    user = (brief.text.split("\n=== ", 1)[0] + f"\n\nOutcome (fixed by the rules): {outcome}, because "
            f"{RULE_TEXT[rule]}.\nVerdicts:\n{peer_lines('', verdicts)}\n")
    if blocking:
        user += "Blocking issues:\n" + "\n".join(f"- {clip(b, POINT_BUDGET)}" for b in blocking) + "\n"
    user += "Axis scores (0-10, 10 best): " + ", ".join(f"{k} {v:.1f}" for k, v in scores.items())
    return [ChatMessage(role="system", content=format_block(schema) + "\n\n" + system),
            ChatMessage(role="user", content=user)]
