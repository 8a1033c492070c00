"""What a revisited question changed, as the council's new answer opens with it: the question, the answer that
replaced the assumption, and whether the recommendation moved (the winning option before and after, and which
advisors changed their vote)."""

from __future__ import annotations

from council.present.debate import option_name
from council.present.text import join_names, one_line
from council.session.state.entities import ConversationSession, Revisit
from council.session.state.outputs import CouncilSynthesis
from council.words import n, t

RECOMMENDATION_CHARS = 200


def _clip(text: str) -> str:
    text = one_line(text)
    return text if len(text) <= RECOMMENDATION_CHARS else text[: RECOMMENDATION_CHARS - 1].rstrip() + "…"


def what_changed(s: ConversationSession, syn: CouncilSynthesis) -> str:
    """The block for the answer written after a revisit ('' when the answer is not one)."""
    v: Revisit | None = s.open_revisit
    if v is None or not v.answer:
        return ""
    assumed = t("revisit.had_assumed", assumption=one_line(v.assumed)) if v.assumed else ""
    out = [t("revisit.revisited", question=one_line(v.question), answer=one_line(v.answer), assumed=assumed)
           + "\n\n"]
    winner = s.tally.winner if s.tally else None
    if v.winner_before or winner:
        before, after = option_name(s.options, v.winner_before), option_name(s.options, winner)
        if winner != v.winner_before:
            out.append(t("revisit.moved", before=before, after=after))
        else:
            out.append(t("revisit.stands", after=after))
        votes = {x.persona: x.option_id for x in s.votes if x.cycle == s.final_round}
        moved = [f"{p} ({v.votes_before[p]} → {o})" for p, o in votes.items()
                 if p in v.votes_before and v.votes_before[p] != o]
        out.append(t("revisit.votes_changed", advisors=n(len(moved), "advisor"), names=join_names(moved)) + "\n\n"
                   if moved else t("revisit.no_vote_changed") + "\n\n")
    else:  # a council of one: no vote to compare, the recommendation itself
        same = one_line(v.recommendation_before).lower() == one_line(syn.recommendation).lower()
        out.append(t("revisit.same") + "\n\n" if same else
                   t("revisit.before", recommendation=_clip(v.recommendation_before)) + "\n\n")
    return "".join(out)
