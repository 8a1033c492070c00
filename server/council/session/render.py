"""Markdown for people: the final answer and the full session transcript."""

from __future__ import annotations

from council.session.entities import ConversationSession, MessageType, QuestionStatus
from council.session.outputs import CouncilSynthesis
from council.session.voting import describe_tally


def _section(title: str, items: list[str], numbered: bool = False) -> str:
    if not items:
        return ""
    lines = [f"{i}. {x}" if numbered else f"- {x}" for i, x in enumerate(items, 1)]
    return f"### {title}\n" + "\n".join(lines) + "\n\n"


def final_answer_markdown(session: ConversationSession, syn: CouncilSynthesis) -> str:
    out = ["## The council's answer\n\n", syn.recommendation.strip(), "\n\n"]
    if session.tally:
        out.append(f"**Vote:** {describe_tally(session.tally)}\n\n")
    out += [
        _section("Where the council agrees", syn.agreements),
        _section("Where it disagrees", syn.conflicts),
        _section("Risks and trade-offs", syn.risks_tradeoffs),
        _section("Next steps", syn.next_steps, numbered=True),
        _section("Dissent", syn.dissent),
        _section("Assumptions the council made", syn.assumptions),
        _section("Notes", syn.notes),
    ]
    models = sorted({f"{u.provider}:{u.model}" for u in session.metadata.models.values()})
    if models:
        out.append(f"_Models: {', '.join(models)}. Cycles: {session.debate_cycles}._\n")
    return "".join(out).strip() + "\n"


def transcript_markdown(session: ConversationSession) -> str:
    s = session
    out = [f"# Council session {s.session_id}\n\n", f"**Request:** {s.request_text}\n\n",
           f"**Status:** {s.status.value} · clarification rounds {s.clarification_rounds} · "
           f"debate cycles {s.debate_cycles}\n\n"]
    if s.persona_selection:
        sel = s.persona_selection
        names = ", ".join(p.name for p in sel.selected_personas)
        out.append(f"**Council:** {names} — {sel.reason}\n\n")
    if s.questions:
        out.append("## Clarification\n\n")
        for q in s.questions:
            if q.status is QuestionStatus.ANSWERED and q.user_answer:
                answer = q.user_answer.answer
            elif q.status is QuestionStatus.SKIPPED:
                answer = f"_skipped — assumed: {q.default_assumption}_"
            else:
                answer = f"_{q.status.value}_"
            out.append(f"- **{q.question}** ({q.target_ambiguity}) → {answer}\n")
        out.append("\n")
    for d in s.discussions:
        out.append(f"## Debate cycle {d.cycle_number}\n\n")
        for resp in (x for x in s.responses if x.cycle == d.cycle_number):
            flag = " ⚠ conformity" if resp.conformity_flag else ""
            out.append(f"### {resp.persona} ({resp.confidence}){flag}\n{resp.position}\n\n")
            out += [_section("Advice", resp.advice), _section("Risks", resp.risks),
                    _section("Next steps", resp.next_steps, numbered=True)]
        if d.resolution_summary:
            out.append(f"_{d.resolution_summary}_\n\n")
    conclusions = [t for t in s.message_turns if t.message_type is MessageType.CONCLUSION]
    rounds = sorted({t.related_cycle_or_round.number for t in conclusions if t.related_cycle_or_round})
    for n in rounds:  # an extended debate concludes again: each conclusion round keeps its own heading
        title = "Conclusions and votes" if len(rounds) == 1 else f"Conclusions and votes after cycle {n}"
        out.append(f"## {title}\n\n")
        out += [f"- **{t.sender.name}:** {t.content}\n" for t in conclusions
                if t.related_cycle_or_round and t.related_cycle_or_round.number == n]
        out.append("\n")
    if s.final_answer:
        out.append(s.final_answer)
    return "".join(out)
