"""Evidence and precedents as people read them: what the advisors looked up in the workspace (and why a request was
refused), the files the user attached, and the similar past decisions the council was reminded of."""

from __future__ import annotations

from council.personas.names import shown
from council.present.text import join_names, one_line
from council.session.state.entities import ConversationSession
from council.session.state.grounds import EvidenceUse, Precedent
from council.words import n, t

REFUSALS = ("outside_workspace", "not_found", "not_a_file", "gitignored", "secret", "hard_link", "binary", "too_large",
            "bad_pattern", "unknown_tool", "timeout", "no_workspace", "limit", "unreadable", "error")  # refusal.<r>
EXCERPT_LINES = 12  # of each result, in the transcript
WHAT = ("read_file", "search_code", "list_files", "attachment", "unknown")  # the tools a use names (tool.<tool>)


def _code(text: str) -> str:
    text = one_line(text)[:120].replace("`", "'")
    return f"`{text}`"


def _found(u: EvidenceUse) -> str:
    if u.tool == "read_file":
        return n(u.count, "line")
    if u.tool == "search_code":
        return n(u.count, "match") + (t("evidence.in_files", files=n(len(u.files), "file_in")) if u.files else "")
    if u.tool == "list_files":
        return n(u.count, "file")
    return n(u.count, "line") if u.count else ""


def use_line(u: EvidenceUse, *, who: bool = True) -> str:
    """One use as a list item: what was asked, what came of it, who asked."""
    regex = " (regex)" if u.regex else ""
    head = f"**{u.use_id}** {t(f'tool.{u.tool}') if u.tool in WHAT else u.tool} {_code(u.query)}{regex}"
    if u.ok:
        found = _found(u)
        cut = t("evidence.cut") if u.truncated else ""
        body = f" — {found}{cut}" if found else ""
        mark = "✓"
    else:
        refusal = u.refusal or "error"
        reason = t(f"refusal.{refusal}") if refusal in REFUSALS else t("refusal.other")
        detail = f" ({one_line(u.detail)})" if u.detail and u.refusal == "bad_pattern" else ""
        body = t("evidence.refused", reason=reason, detail=detail)
        mark = "✗"
    by = join_names([shown(x) for x in u.requested_by])
    asked = f" _({by})_" if who and u.requested_by and u.tool != "attachment" else ""
    return f"- {mark} {head}{body}{asked}\n"


def gathered(uses: list[EvidenceUse], cycle: int) -> str:
    """The ``evidence.gathered`` event: the attachments (cycle 0), or what a cycle's replies asked to look up."""
    if not uses:
        return ""
    title = t("evidence.attachments") if cycle == 0 else t("evidence.from_workspace", cycle=cycle)
    return f"{title}\n\n" + "".join(use_line(u) for u in uses) + "\n"


def evidence_section(s: ConversationSession) -> str:
    """The transcript's account of the evidence: the attachments, then what each cycle asked for, each with the
    start of what the advisors read (an indented block: no text in it can break out of it)."""
    if not s.evidence:
        return ""
    out = [t("evidence.heading") + "\n\n"]
    for cycle in sorted({u.cycle for u in s.evidence}):
        uses = [u for u in s.evidence if u.cycle == cycle]
        out.append((t("evidence.attached_by_user") if cycle == 0 else t("evidence.asked_in_cycle", cycle=cycle))
                   + "\n\n")
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
            f"({consensus(p.consensus)}{votes})\n")


def consensus(kind: str) -> str:
    """How a past decision was reached, in words ("unanimous")."""
    return t(f"consensus.{kind}") if kind in ("unanimous", "majority", "tie", "none") else kind


def recalled(precedents: list[Precedent]) -> str:
    """The ``memory.recalled`` event: similar past decisions offered to the council as context."""
    if not precedents:
        return ""
    head = t("evidence.recalls", decisions=n(len(precedents), "past_decision")) + "\n\n"
    return head + "".join(precedent_line(p) for p in precedents) + "\n"


def precedents_section(s: ConversationSession) -> str:
    """The final answer's note of the past decisions the council was shown."""
    if not s.precedents:
        return ""
    return t("evidence.precedents") + "\n\n" + "".join(precedent_line(p) for p in s.precedents) + "\n"
