"""Evidence and precedents as people read them: what the advisors looked up in the workspace (and why a request was
refused), the files the user attached, and the similar past decisions the council was reminded of."""

from __future__ import annotations

from council.present.text import join_names, one_line, plural
from council.session.entities import ConversationSession
from council.session.grounds import EvidenceUse, Precedent

REFUSALS = {
    "outside_workspace": "it is outside the workspace",
    "not_found": "there is no such file",
    "not_a_file": "it is a folder (list_files shows what is in it)",
    "gitignored": "git ignores it",
    "secret": "it looks like a secrets file, which the council never reads",
    "hard_link": "it has other names (hard links) the council cannot check",
    "binary": "it is a binary file",
    "too_large": "it is over 1 MB",
    "bad_pattern": "the pattern is not valid",
    "unknown_tool": "there is no such tool",
    "timeout": "it took too long",
    "no_workspace": "no workspace is open (or evidence is off)",
    "limit": "too many requests in one cycle",
    "unreadable": "it could not be read",
    "error": "the tool failed",
}
EXCERPT_LINES = 12  # of each result, in the transcript
WHAT = {"read_file": "read", "search_code": "search", "list_files": "list", "attachment": "attached",
        "unknown": "unknown tool"}


def _code(text: str) -> str:
    text = one_line(text)[:120].replace("`", "'")
    return f"`{text}`"


def _found(u: EvidenceUse) -> str:
    if u.tool == "read_file":
        return plural(u.count, "line")
    if u.tool == "search_code":
        return plural(u.count, "match", "matches") + (f" in {plural(len(u.files), 'file')}" if u.files else "")
    if u.tool == "list_files":
        return plural(u.count, "file")
    return plural(u.count, "line") if u.count else ""


def use_line(u: EvidenceUse, *, who: bool = True) -> str:
    """One use as a list item: what was asked, what came of it, who asked."""
    regex = " (regex)" if u.regex else ""
    head = f"**{u.use_id}** {WHAT.get(u.tool, u.tool)} {_code(u.query)}{regex}"
    if u.ok:
        found = _found(u)
        cut = ", cut to fit" if u.truncated else ""
        body = f" — {found}{cut}" if found else ""
        mark = "✓"
    else:
        reason = REFUSALS.get(u.refusal or "error", "refused")
        detail = f" ({one_line(u.detail)})" if u.detail and u.refusal == "bad_pattern" else ""
        body = f" — refused: {reason}{detail}"
        mark = "✗"
    asked = f" _({join_names(u.requested_by)})_" if who and u.requested_by and u.tool != "attachment" else ""
    return f"- {mark} {head}{body}{asked}\n"


def gathered(uses: list[EvidenceUse], cycle: int) -> str:
    """The ``evidence.gathered`` event: the attachments (cycle 0), or what a cycle's replies asked to look up."""
    if not uses:
        return ""
    if cycle == 0:
        title = "**Your attachments are evidence for the council**"
    else:
        title = f"**Evidence from the workspace** _(asked for in cycle {cycle}; every advisor reads it next)_"
    return f"{title}\n\n" + "".join(use_line(u) for u in uses) + "\n"


def evidence_section(s: ConversationSession) -> str:
    """The transcript's account of the evidence: the attachments, then what each cycle asked for, each with the
    start of what the advisors read (an indented block: no text in it can break out of it)."""
    if not s.evidence:
        return ""
    out = ["## Evidence used\n\n"]
    for cycle in sorted({u.cycle for u in s.evidence}):
        uses = [u for u in s.evidence if u.cycle == cycle]
        out.append("**Attached by the user**\n\n" if cycle == 0 else
                   f"**Asked for in cycle {cycle}** _(read by every advisor afterwards)_\n\n")
        for u in uses:
            out.append(use_line(u))
            lines = u.text.splitlines() if u.ok else []
            if lines:
                shown = [*lines[:EXCERPT_LINES], *(["…"] if len(lines) > EXCERPT_LINES else [])]
                out.append("\n" + "".join(f"      {line}\n" for line in shown) + "\n")
        if not out[-1].endswith("\n\n"):
            out.append("\n")
    return "".join(out)


def precedent_line(p: Precedent) -> str:
    votes = f", {p.tally}" if p.tally else ""
    return (f"- {p.decided_at:%Y-%m-%d} · _{one_line(p.question)[:160]}_ → **{one_line(p.outcome)[:160]}** "
            f"({p.consensus}{votes})\n")


def recalled(precedents: list[Precedent]) -> str:
    """The ``memory.recalled`` event: similar past decisions offered to the council as context."""
    if not precedents:
        return ""
    head = f"**The council recalls {plural(len(precedents), 'similar past decision')}** _(from this workspace's " \
           "decision memory; context, not a ruling)_\n\n"
    return head + "".join(precedent_line(p) for p in precedents) + "\n"


def precedents_section(s: ConversationSession) -> str:
    """The final answer's note of the past decisions the council was shown."""
    if not s.precedents:
        return ""
    return "### Past decisions considered\n\n" + "".join(precedent_line(p) for p in s.precedents) + "\n"
