"""What the answer rests on, as people read it: what the debate changed (the first vote against the final one, who
moved and why) and what the recommendation hinges on (the assumptions it depends on, most critical first, each
with what the council would recommend if it were false). One compact rendering each, placed by ``answer.py``; the
consult tools' text uses the one-line forms, the chat's followups the revisit labels.
"""

from __future__ import annotations

from council.present.debate import option_name
from council.present.text import clipped, one_line
from council.session.state.entities import ConversationSession, QuestionStatus, SessionStatus
from council.session.state.outputs import DebateEffect, Hinge, PositionMove, VoteOption
from council.words import n, t

REVISIT_LABEL_CHARS = 60


def _counts(counts: dict[str, int]) -> str:
    return " · ".join(f"{k} {c}" for k, c in counts.items() if c) or t("outcome.no_votes")


def _named(options: list[VoteOption], option_id: str | None) -> str:
    return f"**{option_name(options, option_id)}**"


def debate_line(effect: DebateEffect, options: list[VoteOption]) -> str:
    """One sentence: whether the debate confirmed or overturned the first vote (cycle 1)."""
    first, final = _counts(effect.first_counts), _counts(effect.final_counts)
    if effect.verdict == "no_debate":
        return t("outcome.no_debate", first=first)
    if effect.verdict == "confirmed":
        if effect.final_winner is None:
            return t("outcome.tie_kept", first=first, final=final)
        return t("outcome.confirmed", winner=_named(options, effect.final_winner), first=first, final=final)
    if effect.first_winner is None:
        return t("outcome.tie_broken", winner=_named(options, effect.final_winner), first=first, final=final)
    if effect.final_winner is None:
        return t("outcome.overturned_tie", led=_named(options, effect.first_winner), first=first, final=final)
    return t("outcome.overturned", led=_named(options, effect.first_winner),
             winner=_named(options, effect.final_winner), first=first, final=final)


def move_line(move: PositionMove) -> str:
    """"Security Expert moved from B to A: <the argument>" (or that it named none)."""
    where = t("outcome.from_to", before=move.from_option, after=move.to_option) if move.from_option else \
        t("outcome.to", after=move.to_option)
    why = f": {one_line(move.because)}" if move.because.strip() else t("outcome.no_argument")
    return t("outcome.moved", persona=move.persona, where=where, why=why) + (
        t("cycle.conformity") if move.conformity else "")


def debate_section(effect: DebateEffect | None, options: list[VoteOption]) -> str:
    """The line, one bullet per persona that moved, and the conformity flags counted ('' without a vote)."""
    if effect is None:
        return ""
    out = [f"### {t('outcome.debate_heading')}\n\n{debate_line(effect, options)}\n\n"]
    if effect.moves:
        out.append("".join(f"- {move_line(m)}.\n" for m in effect.moves) + "\n")
    elif effect.verdict != "no_debate":
        out.append(t("outcome.nobody_moved") + "\n\n")
    if effect.conformity_flags:
        out.append(t("outcome.conformity", changes=n(effect.conformity_flags, "change")) + "\n\n")
    return "".join(out)


def hinge_line(hinge: Hinge) -> str:
    return t("outcome.hinge", assumption=one_line(hinge.assumption), if_false=one_line(hinge.if_false))


def hinges_section(hinges: list[Hinge]) -> str:
    """The assumptions the recommendation depends on, most critical first ('' when there are none)."""
    if not hinges:
        return ""
    rows = "".join(f"{i}. {hinge_line(h)} _({t('level.' + h.criticality)})_\n" for i, h in enumerate(hinges, 1))
    hint = f"\n{t('outcome.revisit_hint')}\n" if any(h.question_id for h in hinges) else ""
    return f"### {t('outcome.hinges_heading')}\n\n{rows}{hint}\n"


def revisit_label(hinge: Hinge) -> str:
    """The chat followup's label for revisiting the question behind a hinge."""
    return t("outcome.revisit_label", text=clipped(hinge.assumption, REVISIT_LABEL_CHARS))


def revisits(session: ConversationSession) -> list[dict[str, str]]:
    """The turn result's ``revisit`` offers (``question_id``, ``label``): each hinge of a completed session whose
    question is still unanswered, most critical first."""
    if session.status is not SessionStatus.COMPLETED or session.synthesis is None:
        return []
    asked = ((h, session.question(h.question_id) if h.question_id else None) for h in session.synthesis.hinges)
    return [{"question_id": q.question_id, "label": revisit_label(h)} for h, q in asked
            if q is not None and q.status is not QuestionStatus.ANSWERED]
