"""What the debate changed: the first vote (cycle 1's, placed by the moderator) against the final round's vote.

Pure functions over the session's votes and replies, no I/O. The research this answers: debate often just confirms
the first majority, and agents drift to the majority without a new argument — so the answer says whether the
debate confirmed or overturned the first vote, which personas moved (each with the argument it named, from its
reply's ``change_reason``) and how many changes were flagged as possible conformity.
"""

from __future__ import annotations

from council.session.entities import ConversationSession
from council.session.outputs import DebateEffect, PersonaResponse, PositionMove, Vote
from council.session.voting import tally_votes


def _by_persona(votes: list[Vote], cycle: int) -> dict[str, Vote]:
    return {v.persona: v for v in votes if v.cycle == cycle}


def _move(name: str, rounds: list[int], votes: list[Vote], replies: dict[tuple[str, int], PersonaResponse],
          first: str | None, final: str | None) -> PositionMove:
    """The persona's move, with the argument of the last cycle in which its vote changed."""
    cycle, previous = rounds[-1], first
    for n in rounds[1:]:
        here = _by_persona(votes, n).get(name)
        if here is not None and here.option_id != previous:
            cycle = n
        if here is not None:
            previous = here.option_id
    reply = replies.get((name, cycle))
    because = reply.change_reason.strip() if reply is not None else ""
    flagged = reply is not None and reply.conformity_flag
    return PositionMove(persona=name, from_option=first, to_option=final, cycle=cycle, because=because,
                        conformity=flagged)


def debate_effect(session: ConversationSession) -> DebateEffect | None:
    """The first vote against the final vote (None when nobody voted)."""
    votes = session.votes
    if not votes or not session.options:
        return None
    rounds = sorted({v.cycle for v in votes})
    first_round, final_round = rounds[0], rounds[-1]
    first, final = _by_persona(votes, first_round), _by_persona(votes, final_round)
    first_tally = tally_votes(session.options, list(first.values()))
    final_tally = tally_votes(session.options, list(final.values()))
    replies = {(x.persona, x.cycle): x for x in session.responses if not x.abstained}
    flags = sum(1 for x in session.responses if x.cycle > first_round and x.conformity_flag and not x.abstained)
    if final_round == first_round:
        verdict = "no_debate"
    elif first_tally.winner == final_tally.winner:  # both None: the first vote's tie stood
        verdict = "confirmed"
    else:
        verdict = "overturned"
    moves = []
    for p in session.personas:
        was = first[p.name].option_id if p.name in first else None
        now = final[p.name].option_id if p.name in final else None
        if was != now and now is not None:
            moves.append(_move(p.name, rounds, votes, replies, was, now))
    return DebateEffect(verdict=verdict, first_winner=first_tally.winner, final_winner=final_tally.winner,
                        first_counts=first_tally.counts, final_counts=final_tally.counts, moves=moves,
                        conformity_flags=flags)
