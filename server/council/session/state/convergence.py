"""Convergence of a debate, decided by votes first: pure functions, no I/O, state passed in.

After every vote round the council is *converged*, *refining*, *diverging* or at an *impasse* (the same
disagreement two rounds running), measured *between* personas. Text similarity is a secondary signal only:
embeddings score "same topic, opposite stance" near 0.97, so they never decide.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Literal, TypeGuard

from council.camel import CamelModel
from council.session.state.outputs import Vote, VoteOption, VoteTally

Status = Literal["converged", "refining", "diverging", "impasse"]

STRONG_AGREEMENT = 0.75  # confidence-weighted share of the leading option that counts as consensus
STOP_SHARE = 2 / 3  # share of personas saying continue_debate=false that stops the debate


class Convergence(CamelModel):
    round: int
    status: Status
    agreement: float  # confidence-weighted share of the leading option among this round's votes
    leader: str | None = None
    stability: float | None = None  # share of personas voting as in the previous round (None in the first round)
    stop_requests: float  # share of the seats saying continue_debate = false (an unread vote says go on)
    voters: int | None = None  # votes read this round
    seats: int | None = None  # advisors who spoke this round: each could have voted (None: not counted)
    similarity: float | None = None  # secondary: mean text similarity of positions to the previous cycle
    reason: str = ""


def agreement(votes: list[Vote]) -> tuple[float, str | None]:
    """The leading option's confidence-weighted share of the vote (no leader on a tie)."""
    weights: dict[str, float] = {}
    for v in votes:
        weights[v.option_id] = round(weights.get(v.option_id, 0.0) + max(v.confidence, 0.05), 4)
    if not weights:
        return 0.0, None
    leader = max(sorted(weights), key=lambda k: weights[k])
    share = round(weights[leader] / sum(weights.values()), 4)
    return share, None if list(weights.values()).count(weights[leader]) > 1 else leader  # a tie has no leader


def stability(current: list[Vote], previous: list[Vote]) -> float | None:
    before = {v.persona: v.option_id for v in previous}
    pairs = [(v.option_id, before[v.persona]) for v in current if v.persona in before]
    if not pairs:
        return None
    return round(sum(a == b for a, b in pairs) / len(pairs), 4)


def quorate(voters: int, seats: int | None) -> bool:
    """Whether the votes read speak for the council: at least two thirds of the advisors who spoke (``seats``).
    A first vote reads only the recommendations the moderator could place under one option; with one of three
    placed, that one advisor's vote is no council's agreement, and its wish to stop no council's."""
    return seats is None or voters >= STOP_SHARE * seats


def comparable(previous: Convergence | None) -> TypeGuard[Convergence]:
    """Whether a round's agreement can be compared with ``previous``'s: it had votes and a quorum of them (an
    agreement of one advisor of three, or of nobody, is none the council had, to fall from or rise from)."""
    return previous is not None and previous.voters != 0 and quorate(previous.voters or 0, previous.seats)


def assess(round_no: int, votes: list[Vote], previous_votes: list[Vote], previous: Convergence | None,
           similarity: float | None = None, *, seats: int | None = None) -> Convergence:
    """How the council stands after a vote round. ``seats``: the advisors who spoke in it (not abstained), each
    of whom could have voted; below a quorum of them (:func:`quorate`) the round cannot end the debate."""
    share, leader = agreement(votes)
    stable = stability(votes, previous_votes)
    counted = max(len(votes), seats or 0)
    stops = round(sum(not v.continue_debate for v in votes) / counted, 4) if counted else 0.0
    heads = sum(v.option_id == leader for v in votes)
    quorum = quorate(len(votes), seats)
    if quorum and len(votes) >= 2 and leader is not None and share >= STRONG_AGREEMENT and 2 * heads > len(votes):
        # strong weighted agreement AND a head-count majority, so the stop reason never contradicts the tally
        status: Status = "converged"
        reason = f"{share:.0%} of the weighted vote backs {leader}"
    elif not quorum:
        status, reason = "refining", f"only {len(votes)} of {seats} advisors' votes could be read"
    elif comparable(previous) and stable == 1.0 and previous.leader == leader \
            and abs(previous.agreement - share) < 1e-9 and len(votes) >= 2:
        # a split needs two voters, and the last round must have spoken for the council: one advisor's vote, read
        # again after a round where only it could be read, is no "same split twice in a row"
        status, reason = "impasse", "the same disagreement two rounds running: nobody moved"
    elif comparable(previous) and share < previous.agreement:
        status, reason = "diverging", f"agreement fell from {previous.agreement:.0%} to {share:.0%}"
    elif previous is None:
        status, reason = "refining", "first vote"
    elif not comparable(previous):  # one advisor's 100% is no agreement the council had, to fall from
        status, reason = "refining", f"{share:.0%} of the weighted vote; the last round had too few votes to compare"
    else:
        status, reason = "refining", f"agreement {previous.agreement:.0%} → {share:.0%}"
    return Convergence(round=round_no, status=status, agreement=share, leader=leader, stability=stable,
                       stop_requests=stops, voters=len(votes), seats=seats, similarity=similarity, reason=reason)


def position_similarity(pairs: list[tuple[str, str]], ranker: object | None = None) -> float | None:
    """Mean text similarity of each persona's position to its previous one — the *secondary* signal.

    ``ranker`` is a routing ranker (embeddings when warm, else TF-IDF) with ``score(query, docs)``; without one,
    or if it fails, word overlap (Jaccard) is used. Reported only: it never decides a status.
    """
    if not pairs:
        return None
    scores: list[float] = []
    for before, after in pairs:
        value: float | None = None
        if ranker is not None:
            with suppress(Exception):  # a failing ranker: word overlap instead
                value = float(ranker.score(before, [after])[0])  # type: ignore[attr-defined]
        if value is None:
            a, b = set(before.lower().split()), set(after.lower().split())
            value = len(a & b) / len(a | b) if a | b else 1.0
        scores.append(max(0.0, min(1.0, value)))
    return round(sum(scores) / len(scores), 4)


StopReason = Literal["converged", "impasse", "settled", "limit"]


def should_stop(c: Convergence, *, round_no: int, min_rounds: int) -> StopReason | None:
    """Why the debate stops after this round, or None to go on (the cycle limit is checked by the caller).

    ``settled``: at least two thirds of the advisors who spoke voted and say another cycle would not change their
    vote (an advisor whose vote could not be read has one still to cast).
    """
    if c.status in ("converged", "impasse"):
        return c.status  # type: ignore[return-value]  (both are stop reasons too)
    if round_no >= min_rounds and c.stop_requests >= STOP_SHARE:
        return "settled"
    return None


def tally_votes(options: list[VoteOption], votes: list[Vote], abstentions: list[str] | None = None) -> VoteTally:
    valid_ids = {o.id for o in options}
    first: dict[str, Vote] = {}  # each persona's first vote for an option on the list
    for vote in votes:
        if vote.option_id in valid_ids:
            first.setdefault(vote.persona, vote)
    counted = list(first.values())
    counts = {o.id: 0 for o in options}
    weights = {o.id: 0.0 for o in options}
    for vote in counted:
        counts[vote.option_id] += 1
        weights[vote.option_id] = round(weights[vote.option_id] + vote.confidence, 4)
    voters = len(counted)
    ranked = sorted(options, key=lambda o: (counts[o.id], weights[o.id]), reverse=True)
    winner: str | None = ranked[0].id if voters else None
    consensus = "none"
    if winner is not None:
        if counts[winner] == voters and voters >= 2 and not abstentions:
            consensus = "unanimous"  # every seat: two votes of three, one abstaining, are a majority, not all
        elif len(ranked) > 1 and counts[ranked[1].id] == counts[winner]:
            consensus = "tie"  # a head-count tie goes to the side its voters are surer of; an even one has no winner
            if weights[ranked[1].id] == weights[winner]:
                winner = None
        elif counts[winner] * 2 > voters + len(abstentions or []):
            consensus = "majority"  # of the council's seats: one vote of three, two abstaining, is no majority
    return VoteTally(options=options, counts=counts, weights=weights, winner=winner, consensus=consensus,
                     voters=voters, abstentions=list(abstentions or []))


def describe_tally(t: VoteTally) -> str:
    """One line: "majority for A (Migrate the billing module first): A 3 · B 1"."""
    labels = {o.id: o.label for o in t.options}
    counts = " · ".join(f"{oid} {n}" for oid, n in t.counts.items())
    if t.consensus == "tie":
        return f"tie: {counts}" + (f"; {t.winner} ({labels[t.winner]}) leads on confidence" if t.winner else "")
    if t.winner is None:
        return "no votes were cast"
    return f"{t.consensus} for {t.winner} ({labels[t.winner]}): {counts}"
