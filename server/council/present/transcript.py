"""The whole session as one markdown document: the question, the council, clarifications and assumptions, every
cycle with its positions, votes and summary (and what the user added when re-opening the debate), the final answer
and the follow-up questions with the moderator's answers."""

from __future__ import annotations

from council.present import clarify, debate, follow_up
from council.present.persona import PersonaText, vote
from council.session.entities import ConversationSession, QuestionStatus


def _clarifications(s: ConversationSession) -> str:
    if not s.questions:
        return ""
    out = ["## Clarification\n\n"]
    for q in s.questions:
        if q.status is QuestionStatus.ANSWERED and q.user_answer:
            answer = f"**{q.user_answer.answer}**"
        elif q.status is QuestionStatus.SKIPPED:
            answer = f"_skipped — assumed: {q.default_assumption}_"
        else:
            answer = f"_{q.status.value}_"
        out.append(f"- {q.question} → {answer}\n")
    return "".join(out) + "\n"


def _cycle(s: ConversationSession, cycle: int) -> str:
    out = [debate.cycle_started(cycle, None).replace("### ", "## ", 1)]
    votes = {v.persona: v for v in s.votes if v.cycle == cycle}
    for resp in (x for x in s.responses if x.cycle == cycle):
        out.append(PersonaText(resp.persona).complete(resp))
        if resp.persona in votes and cycle > 1:
            out.append(vote(votes.pop(resp.persona), s.options))
    if cycle == 1 and s.options:
        out.append(debate.options(s.options))
    out += [vote(v, s.options) for v in votes.values()]
    out.append(debate.cycle_summary(s, cycle))
    if next(d for d in s.discussions if d.cycle_number == cycle).status.value == "limit_reached":
        out.append(debate.limit_reached(cycle, cycle, False, 0))
    return "".join(out)


def transcript(s: ConversationSession) -> str:
    out = [f"# {s.request_text.strip().splitlines()[0][:120]}\n\n",
           f"_Council session {s.session_id} · {s.created_at:%Y-%m-%d %H:%M} UTC · {s.status.value}_\n\n"]
    if s.persona_selection:
        out.append(clarify.selection(s.persona_selection))
    out.append(_clarifications(s))
    for d in s.discussions:
        if d.status.value != "in_progress":
            out.append(_cycle(s, d.cycle_number))
            out.append(follow_up.transcript_inputs(s, d.cycle_number))
    if s.tally:
        out.append(debate.tally(s.tally))
    if s.final_answer:
        out.append(s.final_answer)
    out.append(follow_up.transcript_follow_ups(s))
    return "".join(out)
