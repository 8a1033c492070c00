"""The whole session as one markdown document, in the session's language: the question, the council, every cycle,
the convergence, the evidence, the vote, the final answer and the follow-ups. The document can always be encoded (a
file name that is not UTF-8, kept as lone surrogates, shows U+FFFD)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from council.encodable import encodable
from council.present import clarify, cost, debate, follow_up
from council.present.evidence import evidence_section
from council.present.persona import PersonaText, vote
from council.present.text import bullets, cell, clipped, in_session_language, join_names, one_line, percent
from council.session.state.entities import ConversationSession, QuestionStatus
from council.words import t

if TYPE_CHECKING:
    from council.transcripts import FolderProblem

TITLE_CHARS = 120
ENDED = ("converged", "impasse", "settled", "limit")  # how a cycle's debate ended (ended.<stop>)


def _clarifications(s: ConversationSession) -> str:
    if not s.questions:
        return ""
    out = [t("transcript.clarification") + "\n\n"]
    for q in s.questions:
        if q.status is QuestionStatus.ANSWERED and q.user_answer:
            answer = f"**{q.user_answer.answer}**"
        elif q.status is QuestionStatus.SKIPPED:
            answer = t("transcript.skipped", assumption=q.default_assumption)
        else:
            answer = f"_{t('question.' + q.status.value)}_"
        out.append(f"- {q.question} → {answer}\n")
    return "".join(out) + "\n"


def _assumptions(s: ConversationSession) -> str:
    if not s.assumption_log:
        return ""
    return t("transcript.assumptions") + "\n\n" + bullets(
        f"{a.assumption} — _{one_line(a.rationale)}_" for a in s.assumption_log) + "\n"


def _question(s: ConversationSession) -> str:
    """The question in full when the title cut it, and the names of what the user attached."""
    text = s.request_text.strip()
    out = []
    if "\n" in text or len(text) > TITLE_CHARS:
        out.append("".join(f"> {line}\n" if line.strip() else ">\n" for line in text.splitlines()) + "\n")
    if s.metadata.context:
        out.append(t("transcript.attached", names=join_names([f"`{cell(n)}`" for n in s.metadata.context])) + "\n\n")
    return "".join(out)


def _convergence(s: ConversationSession) -> str:
    """One row per concluded cycle: the votes, the agreement and where the debate stood."""
    rows = []
    for d in s.discussions:
        conv = d.convergence
        if conv is None:
            continue
        counts = Counter(v.option_id for v in s.votes if v.cycle == d.cycle_number)
        votes = " · ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "—"
        leader = debate.option_name(s.options, conv.leader) if conv.leader else "—"
        ended = t(f"ended.{d.stop_reason}") if d.stop_reason in ENDED else ""
        rows.append(f"| {d.cycle_number} | {votes} | {cell(leader)} | {percent(conv.agreement)} | "
                    f"{t('convergence.' + conv.status)} | {ended} |")
    if not rows:
        return ""
    return (f"{t('transcript.convergence')}\n\n{t('transcript.columns')}\n|---|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n\n")


def _cycle(s: ConversationSession, cycle: int) -> str:
    out = [debate.cycle_started(cycle, None).replace("### ", "## ", 1)]
    votes = {v.persona: v for v in s.votes if v.cycle == cycle}
    differs = s.seating is not None and s.seating.differs
    models = {x.persona: x.model or None for x in s.responses if x.cycle == cycle} if differs else {}
    for resp in (x for x in s.responses if x.cycle == cycle):
        out.append(PersonaText(resp.persona, model=models.get(resp.persona)).complete(resp))
        if resp.persona in votes and cycle > 1:
            out.append(vote(votes.pop(resp.persona), s.options, models.get(resp.persona)))
    if cycle == 1 and s.options:
        out.append(debate.options(s.options))
    out += [vote(v, s.options, models.get(v.persona)) for v in votes.values()]
    out.append(debate.cycle_summary(s, cycle))
    if next(d for d in s.discussions if d.cycle_number == cycle).status.value == "limit_reached":
        out.append(debate.limit_reached(cycle, False, 0))
    return "".join(out)


def title(s: ConversationSession) -> str:
    """The question's first line, cut to a title."""
    text = s.request_text.strip()
    return clipped(text.splitlines()[0], TITLE_CHARS) if text else t("transcript.session")


@in_session_language
def transcript(s: ConversationSession) -> str:
    out = [f"# {title(s)}\n\n",
           t("transcript.header", date=f"{s.created_at:%Y-%m-%d %H:%M}", status=t(f"state.{s.status.value}")) + "\n\n",
           _question(s)]
    if s.persona_selection:
        out.append(clarify.selection(s.persona_selection))
    if s.seating is not None:
        out.append(cost.seating(s.seating))
    out += [_clarifications(s), _assumptions(s)]
    for resp in (x for x in s.responses if x.cycle == 0):  # a council of one: its answers, no debate
        out.append(f"{t('transcript.alone')}\n\n" + PersonaText(resp.persona).complete(resp))
    for d in s.discussions:
        if d.status.value != "in_progress":
            out += [_cycle(s, d.cycle_number), follow_up.transcript_inputs(s, d.cycle_number)]
    out += [_convergence(s), evidence_section(s)]
    if s.tally:
        out.append(debate.tally(s.tally))
    if s.final_answer:
        out.append(s.final_answer)
    out.append(follow_up.transcript_follow_ups(s))
    calls = cost.calls_line(s)  # the last line
    out.append(f"\n{calls}\n" if calls else "")
    return encodable("".join(out))


def written_line(path: object) -> str:
    """Where a transcript file was written (``council ask --transcript``)."""
    return t("transcript.written", path=path) + "\n"


def unusable_folder(folder: object, problem: FolderProblem) -> str:
    """Why transcripts cannot go into ``folder`` (one line, plain text)."""
    if problem.reason == "not_a_folder":
        if problem.path == folder:
            return t("usage.transcript_file", folder=folder)
        return t("usage.transcript_not_folder", folder=folder, path=problem.path)
    return t("usage.transcript_not_writable", folder=folder, path=problem.path, detail=problem.detail)
