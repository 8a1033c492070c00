"""What the answer rests on, as people read it: what the debate changed (the first vote against the final one, who
moved and why) and what the recommendation hinges on (the assumptions it depends on, most critical first, each
with what the council would recommend if it were false). One compact rendering each, placed by ``answer.py``; the
consult tools' text uses the one-line forms, the chat's followups the revisit labels.
"""

from __future__ import annotations

from council.personas.names import shown
from council.present.debate import option_name
from council.present.text import clause, clipped, join_names, one_line
from council.session.state.entities import ConversationSession, QuestionStatus, SessionStatus
from council.session.state.outputs import DebateEffect, Hinge, HingeAlternative, PositionMove, VoteOption
from council.words import n, t

REVISIT_LABEL_CHARS = 60
NO_CHANGE = ("no_debate", "unusable", "no_new_vote")  # verdicts with no vote after the earlier one to compare


def _counts(counts: dict[str, int]) -> str:
    return " · ".join(f"{k} {c}" for k, c in counts.items() if c) or t("outcome.no_votes")


def _named(options: list[VoteOption], option_id: str | None) -> str:
    return f"**{option_name(options, option_id)}**"


def debate_line(effect: DebateEffect, options: list[VoteOption]) -> str:
    """One sentence: whether the debate confirmed or overturned the first vote (cycle 1), or, after a revisit,
    whether the re-vote confirmed or overturned the vote before the user's answer (``revote_*`` keys); a cycle in
    which nobody voted on the options is said to have run (``no_new_vote``), never to be missing."""
    first, final = _counts(effect.first_counts), _counts(effect.final_counts)
    pre = "outcome.revote_" if effect.since == "revisit" else "outcome."
    if effect.verdict == "no_debate":
        return t(pre + "no_debate", first=first)
    if effect.verdict == "unusable":  # a cycle ran (its calls were spent) but none of its replies could be used
        return t(pre + "unusable", first=first)
    if effect.verdict == "no_new_vote":
        return t(pre + "no_new_vote", first=first, cycles=n(effect.cycles_after, "debate_cycle"))
    if effect.since == "first_vote" and not any(effect.first_counts.values()):  # nothing was tied: no votes
        if effect.final_winner is None:
            return t("outcome.from_none_tie", first=first, final=final)
        return t("outcome.from_none", winner=_named(options, effect.final_winner), first=first, final=final)
    if effect.verdict == "confirmed":
        if effect.final_winner is None:
            return t(pre + "tie_kept", first=first, final=final)
        return t(pre + "confirmed", winner=_named(options, effect.final_winner), first=first, final=final)
    if effect.first_winner is None:
        return t(pre + "tie_broken", winner=_named(options, effect.final_winner), first=first, final=final)
    if effect.final_winner is None:
        return t(pre + "overturned_tie", led=_named(options, effect.first_winner), first=first, final=final)
    return t(pre + "overturned", led=_named(options, effect.first_winner),
             winner=_named(options, effect.final_winner), first=first, final=final)


def move_line(move: PositionMove) -> str:
    """"Security Expert moved from B to A: <the argument>" (or that it named none). A persona with no first vote
    (its recommendation was placed under no option, or its reply could not be used) did not move: it voted for the
    first time in the debate ("cast no first vote and voted for A"), with its argument only if it named one."""
    said = f": {clause(move.because)}" if move.because.strip() else ""
    if not move.from_option:
        return t("outcome.joined", persona=shown(move.persona), after=move.to_option, why=said) + (
            t("cycle.conformity") if move.conformity else "")
    where = t("outcome.from_to", before=move.from_option, after=move.to_option)
    why = said or t("outcome.no_argument")
    return t("outcome.moved", persona=shown(move.persona), where=where, why=why) + (
        t("cycle.conformity") if move.conformity else "")


def dropped_line(effect: DebateEffect) -> str:
    """Who voted in the earlier vote and cast none in the final one ('' when nobody): a final count that differs
    from the first without anybody moving is their absence, not the debate's doing."""
    if not effect.dropped:
        return ""
    key = "outcome.revote_dropped" if effect.since == "revisit" else "outcome.dropped"
    return t(key, names=join_names([shown(x) for x in effect.dropped]))


def unusable_later_line() -> str:
    """That a cycle after the final vote ran but was dropped, no reply in it usable: the answer rests on the votes
    before it (said where the debate did vote after the first vote; else the verdict says it)."""
    return t("outcome.unusable_later")


def came_back_line(effect: DebateEffect) -> str:
    """That no final vote differs from the first, and who changed their vote in a cycle between and came back to it
    (said where nobody moved: without it, a confirmed vote reads as if no vote had changed)."""
    return t("outcome.came_back", names=join_names([shown(x) for x in effect.returned]))


def debate_section(effect: DebateEffect | None, options: list[VoteOption]) -> str:
    """The line, one bullet per persona that moved, who stopped voting, and the conformity flags counted ('' without
    a vote)."""
    if effect is None:
        return ""
    out = [f"### {t('outcome.debate_heading')}\n\n{debate_line(effect, options)}\n\n"]
    if effect.moves:
        out.append("".join(f"- {move_line(m)}.\n" for m in effect.moves) + "\n")
    elif effect.returned:  # a vote changed and came back: "Nobody changed their vote" would be false
        out.append(came_back_line(effect) + "\n\n")
    elif effect.dropped and effect.verdict not in NO_CHANGE:  # one that stopped voting may have
        out.append(t("outcome.no_final_differs") + "\n\n")  # changed its vote before: not "Nobody changed"
    elif effect.verdict not in NO_CHANGE:
        out.append(t("outcome.nobody_moved") + "\n\n")
    if effect.unusable_cycles and effect.verdict != "unusable":
        out.append(unusable_later_line() + "\n\n")
    if effect.dropped:
        out.append(dropped_line(effect) + "\n\n")
    if effect.conformity_flags:
        out.append(t("outcome.conformity", changes=n(effect.conformity_flags, "change")) + "\n\n")
    return "".join(out)


def _course(alt: HingeAlternative, options: list[VoteOption]) -> str:
    return f"**{option_name(options, alt.option_id)}**" if alt.option_id else f"**{one_line(alt.favours)}**"


def hinge_line(hinge: Hinge, options: list[VoteOption] | None = None) -> str:
    """One hinge: what was taken as given, each alternative and the course it would lean to (the engine's, from the
    clarifier's plan), then the chair's words; or, for a hinge of the chair's alone, what it would recommend."""
    if not hinge.alternatives:
        return t("outcome.hinge", assumption=one_line(hinge.assumption), if_false=one_line(hinge.if_false))
    instead = ". ".join(t("outcome.if_instead", answer=one_line(a.answer), course=_course(a, options or []))
                        for a in hinge.alternatives)
    question = one_line(hinge.question)
    if hinge.basis == "answered":
        line = t("outcome.hinge_answered", question=question, answer=one_line(hinge.assumption).rstrip(" ."),
                 alternatives=instead)
    else:
        line = t("outcome.hinge_assumed", question=question, assumption=one_line(hinge.assumption),
                 alternatives=instead)
    return line + (t("outcome.chair_adds", words=one_line(hinge.chair)) if hinge.chair.strip() else "")


def hinges_section(hinges: list[Hinge], options: list[VoteOption] | None = None) -> str:
    """What the recommendation depends on, most critical first ('' when nothing): the user's answers and the
    assumptions another likely answer would move, and the chair's own judgement of the assumptions."""
    if not hinges:
        return ""
    rows = "".join(f"{i}. {hinge_line(h, options)} _({t('level.' + h.criticality)})_\n"
                   for i, h in enumerate(hinges, 1))
    skipped = any(h.question_id and h.basis == "assumed" for h in hinges)
    hint = f"\n{t('outcome.revisit_hint')}\n" if skipped else ""
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
            if q is not None and q.status is not QuestionStatus.ANSWERED and h.basis == "assumed"]
