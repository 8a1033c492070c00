"""What a revisited question changed, as the council's new answer opens with it: the question, the answer that
replaced the assumption, and whether the recommendation moved (the winning option before and after, and which
advisors changed their vote)."""

from __future__ import annotations

from council.present.debate import option_name
from council.present.text import join_names, one_line, plural
from council.session.entities import ConversationSession, Revisit
from council.session.outputs import CouncilSynthesis
from council.session.vote_round import final_round

RECOMMENDATION_CHARS = 200


def _clip(text: str) -> str:
    text = one_line(text)
    return text if len(text) <= RECOMMENDATION_CHARS else text[: RECOMMENDATION_CHARS - 1].rstrip() + "…"


def what_changed(s: ConversationSession, syn: CouncilSynthesis) -> str:
    """The block for the answer written after a revisit ('' when the answer is not one)."""
    v: Revisit | None = s.open_revisit
    if v is None or not v.answer:
        return ""
    assumed = f" (the council had assumed: {one_line(v.assumed)})" if v.assumed else ""
    out = [f"**Revisited:** “{one_line(v.question)}” — you answered **{one_line(v.answer)}**{assumed}.\n\n"]
    winner = s.tally.winner if s.tally else None
    if v.winner_before or winner:
        before, after = option_name(s.options, v.winner_before), option_name(s.options, winner)
        if winner != v.winner_before:
            out.append(f"**What changed:** the recommendation moved from **{before}** to **{after}**.")
        else:
            out.append(f"**What changed:** the recommendation stands — **{after}**.")
        votes = {x.persona: x.option_id for x in s.votes if x.cycle == final_round(s)}
        moved = [f"{p} ({v.votes_before[p]} → {o})" for p, o in votes.items()
                 if p in v.votes_before and v.votes_before[p] != o]
        out.append(f" {plural(len(moved), 'advisor')} changed their vote: {join_names(moved)}.\n\n" if moved
                   else " No advisor changed their vote.\n\n")
    else:  # a council of one: no vote to compare, the recommendation itself
        same = one_line(v.recommendation_before).lower() == one_line(syn.recommendation).lower()
        out.append("**What changed:** nothing — the recommendation is the same.\n\n" if same else
                   f"**What changed:** before, the recommendation was “{_clip(v.recommendation_before)}”.\n\n")
    return "".join(out)
