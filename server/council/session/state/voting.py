"""Pure vote arithmetic: the tally of one vote round on a fixed option list, and consensus kinds.

Only the votes passed in count (the engine passes the final round's votes), each persona at most once, only for
options on the list; confidence weighs the tally; the winner is decided by count, then by weight.
"""

from __future__ import annotations

from council.session.state.outputs import Vote, VoteOption, VoteTally


def tally_votes(options: list[VoteOption], votes: list[Vote], abstentions: list[str] | None = None) -> VoteTally:
    valid_ids = {o.id for o in options}
    seen: set[str] = set()
    counted: list[Vote] = []
    for vote in votes:
        if vote.persona in seen or vote.option_id not in valid_ids:
            continue
        seen.add(vote.persona)
        counted.append(vote)
    counts = {o.id: 0 for o in options}
    weights = {o.id: 0.0 for o in options}
    for vote in counted:
        counts[vote.option_id] += 1
        weights[vote.option_id] = round(weights[vote.option_id] + vote.confidence, 4)
    voters = len(counted)
    ranked = sorted(options, key=lambda o: (counts[o.id], weights[o.id]), reverse=True)
    winner: str | None = None
    consensus = "none"
    if voters:
        top = ranked[0].id
        tied = len(ranked) > 1 and counts[ranked[1].id] == counts[top]
        if counts[top] == voters and voters >= 2:
            winner, consensus = top, "unanimous"
        elif tied:
            winner, consensus = None, "tie"
        elif counts[top] * 2 > voters:
            winner, consensus = top, "majority"
        else:
            winner, consensus = top, "none"
    return VoteTally(options=options, counts=counts, weights=weights, winner=winner, consensus=consensus,
                     voters=voters, abstentions=list(abstentions or []))


def describe_tally(t: VoteTally) -> str:
    """One line: "majority for A (Migrate the billing module first): A 3 · B 1"."""
    labels = {o.id: o.label for o in t.options}
    counts = " · ".join(f"{oid} {n}" for oid, n in t.counts.items())
    if t.consensus == "tie":
        return f"tie: {counts}"
    if t.winner is None:
        return "no votes were cast"
    return f"{t.consensus} for {t.winner} ({labels[t.winner]}): {counts}"
