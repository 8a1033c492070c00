"""The words of a review decision that no model writes (``ReviewWords``, the writer ``council.review.run.conduct``
is given): blocking issues from failed checklist items, next steps for missing artifacts, the decision's notes, the
summary when the chair's model failed; and the review's progress and ``council inbox`` lines.
"""

from __future__ import annotations

from typing import Any

from council.present.text import grouped, join_names, one_line, plural
from council.review.models import Verdict
from council.review.rules import APPROVAL_CONFIDENCE, Blocker
from council.review.run import DecisionFacts

RULES = {
    "blocking_issues": "any blocking issue means REJECT",
    "missing_artifacts": "a role needs an artifact the request does not carry, so the council needs more information",
    "role_needs_more_info": "a role could not decide from the evidence given, so the council needs more information",
    "low_confidence": f"an approval below confidence {APPROVAL_CONFIDENCE:.1f} is not an approval, so the council "
                      "needs more information",
    "all_approve": "every role approved",
}
RULE_NUMBER = {name: i for i, name in enumerate(RULES, 1)}
OUTCOME_WORDS = {Verdict.APPROVE: "APPROVES", Verdict.REJECT: "REJECTS", Verdict.NEEDS_MORE_INFO: "NEEDS MORE INFO on"}


class ReviewWords:
    """The review writer (see ``council.review.run.ReviewWriter``)."""

    def blocking_issue(self, blocker: Blocker) -> str:
        if blocker.kind == "checklist":
            answer = f": {one_line(blocker.answer)}" if blocker.answer.strip() else ""
            return f"{blocker.role}: failed the check \u201c{blocker.text}\u201d{answer}"
        if blocker.kind == "unexplained_reject":
            return f"{blocker.role} rejects the change without naming an issue."
        return f"{blocker.role}: {one_line(blocker.text)}"

    def missing_step(self, artifact: str, roles: list[str]) -> str:
        return f"Provide {artifact} (needed by {join_names(roles)})."

    def notes(self, facts: DecisionFacts) -> list[str]:
        out = [f"Outcome by rule {RULE_NUMBER[facts.rule]} ({facts.rule}): {RULES[facts.rule]}"
               + (f" ({plural(len(facts.blockers), 'blocking issue')})." if facts.blockers else ".")]
        for role, names in facts.missing.items():
            out.append(f"{role} needs {join_names(names)}, which the request does not carry.")
        for c in facts.truncated:
            out.append(f"{c.artifact} was cut to fit the roles' prompts: they saw the first {c.kept_chars:,} of "
                       f"{c.original_chars:,} characters.")
        out += self._debate(facts)
        out += [f"{role}: {note}." for role, note in facts.role_notes.items()]
        if facts.chair_failed:
            out.append(f"The chair's model failed ({facts.chair_note or 'no usable reply'}); the summary was "
                       "written from the rules.")
        elif facts.chair_note:
            out.append(f"Chair: {facts.chair_note}.")
        return out

    @staticmethod
    def _debate(facts: DecisionFacts) -> list[str]:
        d = facts.debate
        if not d.held:
            return []
        sides = grouped((verdict.value, role) for role, verdict in d.first_round.items())
        split = "; ".join(f"{verdict}: {join_names(roles)}" for verdict, roles in sides.items())
        final = {v.role: v.verdict.value for v in facts.verdicts}
        moves = [f"{role} {d.first_round[role].value} \u2192 {final[role]}" for role in d.changed]
        text = (f"The roles disagreed ({split}), so each saw the others' concerns for one debate round; "
                + (f"changed: {', '.join(moves)}." if moves else "nobody changed their verdict."))
        return [text] + [f"{role}'s debate reply failed; its first verdict stands." for role in d.kept_first]

    def fallback_summary(self, facts: DecisionFacts) -> str:
        text = f"The council {OUTCOME_WORDS[facts.outcome]} request {facts.request.request_id}: {RULES[facts.rule]}."
        if facts.blockers:
            text += " Blocking: " + "; ".join(self.blocking_issue(b) for b in facts.blockers[:3]) + "."
        counts = grouped((v.verdict.value, v.role) for v in facts.verdicts)
        text += " Verdicts: " + "; ".join(f"{k} from {join_names(v)}" for k, v in counts.items()) + "."
        return text


def plan_line(change_type: str, roles: list[str], fewest: int, most: int) -> str:
    """What a review is about to do (a confirmation prompt)."""
    calls = f"{fewest}" if fewest == most else f"{fewest}–{most}"
    return (f"The review council for {change_type}: {join_names(roles)}, then the chair: {calls} model calls "
            "(a second round only when the roles disagree).")


PROGRESS = {  # review progress kind → line (other kinds people need not see)
    "panel": "Review panel for {change_type}: {seats}.",
    "role_started": "{role} is {doing}\u2026",
    "verdict": "{role}: {verdict} (confidence {confidence:.2f}).",
    "debate": "The roles disagree: one debate round, each role sees the others' concerns.",
    "decided": "By the rules: {outcome} ({rule}). The chair writes the reasoning\u2026",
    "problem": "\u26a0 {role}: {message}",
}
INBOX = {  # what happened to a request in ``council inbox`` → its stderr line
    "reviewing": "{file}: reviewing {request_id}\u2026",
    "decided": "{file}: {outcome} \u2192 {decision}",
    "recovered": "{file}: already decided before a restart; moved to done/",
    "rejected": "{file}: rejected \u2192 {moved_to} ({message})",
    "failed": "{file}: failed \u2192 {moved_to} ({message})",
    "crashed": "{file}: left in processing/ after an internal error ({error})",
    "vanished": "{file}: removed from processing/ by someone else; nothing to do",
}


def progress_line(kind: str, data: dict[str, Any]) -> str:
    """One line for a review progress report ('' for kinds people need not see)."""
    if kind not in PROGRESS:
        return ""
    seats = ", ".join(seat.role for seat in data.get("seats", ()))
    doing = "reviewing" if data.get("round") == 1 else "reconsidering"
    message = one_line(str(data.get("message", "")))
    return PROGRESS[kind].format(**{**data, "seats": seats, "doing": doing, "message": message})


def inbox_line(kind: str, data: dict[str, Any]) -> str:
    """One stderr line of ``council inbox`` per thing that happened to a request, and the run's summary."""
    if kind in INBOX:
        return INBOX[kind].format(**{**data, "message": one_line(str(data.get("message", "")))})
    if kind != "summary":
        return ""
    stuck = f", {data['stuck']} left in processing/" if data.get("stuck") else ""
    if data.get("unclaimed"):
        stuck += f", {data['unclaimed']} could not be claimed (left in inbox/)"
    return (f"inbox: {plural(data.get('decided', 0), 'decision')}, {data.get('rejected', 0)} rejected, "
            f"{data.get('failed', 0)} failed, {data.get('recovered', 0)} recovered{stuck}.")

