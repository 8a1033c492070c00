"""Vote-first convergence: pure ``agreement``, ``stability``, ``assess`` and ``should_stop`` (no I/O, no session)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from council.session.state.convergence import (
    STOP_SHARE,
    STRONG_AGREEMENT,
    Convergence,
    agreement,
    assess,
    should_stop,
    stability,
)
from council.session.state.outputs import Vote


def v(persona: str, option: str, confidence: float = 0.8, *, cont: bool = True, cycle: int = 1) -> Vote:
    return Vote(persona=persona, option_id=option, confidence=confidence, rationale="r", continue_debate=cont,
                cycle=cycle)


def votes(spec: str, confidence: float = 0.8, *, cont: bool = True) -> list[Vote]:
    """``"AAB"`` → P1 votes A, P2 votes A, P3 votes B, all at ``confidence``."""
    return [v(f"P{i}", option, confidence, cont=cont) for i, option in enumerate(spec, 1)]


def test_constants():
    assert STRONG_AGREEMENT == 0.75
    assert STOP_SHARE == pytest.approx(2 / 3)


# --- agreement ------------------------------------------------------------------------------------------------
class TestAgreement:
    def test_no_votes(self):
        assert agreement([]) == (0.0, None)

    def test_single_vote(self):
        assert agreement([v("P1", "B", 0.3)]) == (1.0, "B")

    def test_unanimous(self):
        assert agreement(votes("AAA")) == (1.0, "A")

    def test_confidence_weighted_share(self):
        share, leader = agreement([v("P1", "A", 0.9), v("P2", "A", 0.9), v("P3", "B", 0.6)])
        assert leader == "A" and share == round(1.8 / 2.4, 4) == 0.75

    def test_weight_beats_headcount(self):
        # two lukewarm votes for A weigh less than one confident vote for B
        share, leader = agreement([v("P1", "A", 0.2), v("P2", "A", 0.2), v("P3", "B", 0.9)])
        assert leader == "B" and share == round(0.9 / 1.3, 4)

    def test_tie_has_no_leader(self):
        share, leader = agreement([v("P1", "A", 0.7), v("P2", "B", 0.7)])
        assert (share, leader) == (0.5, None)

    def test_weighted_tie_across_different_headcounts(self):
        share, leader = agreement([v("P1", "A", 0.4), v("P2", "A", 0.4), v("P3", "B", 0.8)])
        assert leader is None and share == 0.5

    def test_tie_between_leaders_but_not_others(self):
        share, leader = agreement([v("P1", "A", 0.6), v("P2", "B", 0.6), v("P3", "C", 0.3)])
        assert leader is None and share == 0.4

    def test_zero_confidence_still_counts_a_little(self):
        share, leader = agreement([v("P1", "A", 0.0), v("P2", "A", 0.0), v("P3", "B", 0.0)])
        assert leader == "A" and share == round(0.1 / 0.15, 4)

    def test_zero_confidence_votes_alone(self):
        assert agreement([v("P1", "A", 0.0)]) == (1.0, "A")

    def test_three_way(self):
        share, leader = agreement([v("P1", "A", 0.5), v("P2", "B", 0.4), v("P3", "C", 0.1)])
        assert leader == "A" and share == 0.5

    def test_order_does_not_matter(self):
        vs = [v("P1", "A", 0.9), v("P2", "B", 0.3), v("P3", "C", 0.5), v("P4", "B", 0.3)]
        assert agreement(vs) == agreement(list(reversed(vs)))

    def test_float_rounding_does_not_break_a_tie(self):
        share, leader = agreement([v("P1", "A", 0.7), v("P2", "A", 0.1), v("P3", "B", 0.8)])
        assert (share, leader) == (0.5, None)


# --- stability ------------------------------------------------------------------------------------------------
class TestStability:
    def test_first_round_has_none(self):
        assert stability(votes("AAB"), []) is None

    def test_nobody_moved(self):
        assert stability(votes("AAB"), votes("AAB")) == 1.0

    def test_confidence_change_is_not_a_move(self):
        assert stability(votes("AAB", 0.9), votes("AAB", 0.3)) == 1.0

    def test_one_of_three_moved(self):
        assert stability(votes("AAA"), votes("AAB")) == round(2 / 3, 4)

    def test_everyone_swapped(self):
        assert stability(votes("BA"), votes("AB")) == 0.0

    def test_only_personas_present_in_both_rounds_count(self):
        current = [v("P1", "A"), v("P2", "B"), v("New", "B")]
        previous = [v("P1", "A"), v("P2", "A"), v("Gone", "A")]
        assert stability(current, previous) == 0.5

    def test_no_overlap(self):
        assert stability([v("P1", "A")], [v("P2", "A")]) is None


# --- assess ---------------------------------------------------------------------------------------------------
def split(round_no: int = 1) -> Convergence:
    """A first-round 2–1 split at 0.8 confidence: 66.7 % for A."""
    return assess(round_no, votes("AAB"), [], None)


class TestAssess:
    def test_first_vote_refining(self):
        c = split()
        assert (c.round, c.status, c.leader, c.agreement) == (1, "refining", "A", round(2 / 3, 4))
        assert c.stability is None and c.reason == "first vote" and c.similarity is None

    def test_converged_at_strong_agreement(self):
        c = assess(1, [v("P1", "A", 0.9), v("P2", "A", 0.9), v("P3", "B", 0.6)], [], None)
        assert c.agreement == 0.75 and c.status == "converged" and c.leader == "A"
        assert c.reason == "75% of the weighted vote backs A"

    def test_just_below_strong_agreement_is_not_converged(self):
        c = assess(1, [v("P1", "A", 0.9), v("P2", "A", 0.9), v("P3", "B", 0.61)], [], None)
        assert c.agreement < STRONG_AGREEMENT and c.status == "refining"

    def test_unanimous_converged_in_the_first_round(self):
        assert assess(1, votes("AAAA"), [], None).status == "converged"

    def test_converged_needs_two_voters(self):
        c = assess(1, [v("P1", "A", 1.0)], [], None)
        assert c.agreement == 1.0 and c.status == "refining"

    def test_converged_needs_a_leader(self):
        c = assess(1, votes("AB"), [], None)
        assert c.leader is None and c.status == "refining"

    def test_converged_wins_over_impasse(self):
        first = assess(1, votes("AAAA"), [], None)
        again = assess(2, votes("AAAA"), votes("AAAA"), first)
        assert again.status == "converged" and again.stability == 1.0

    def test_impasse_when_the_same_split_repeats(self):
        first = split()
        c = assess(2, votes("AAB"), votes("AAB"), first)
        assert c.status == "impasse" and c.stability == 1.0 and c.agreement == first.agreement
        assert c.reason == "the same disagreement two rounds running: nobody moved"

    def test_impasse_on_a_repeated_tie(self):
        first = assess(1, votes("AB"), [], None)
        assert assess(2, votes("AB"), votes("AB"), first).status == "impasse"

    def test_impasse_needs_the_same_weighted_agreement(self):
        first = split()
        higher = assess(2, [v("P1", "A", 0.8), v("P2", "A", 0.8), v("P3", "B", 0.7)], votes("AAB"), first)
        assert higher.stability == 1.0 and higher.status == "refining"  # the minority cooled: agreement grew
        lower = assess(2, [v("P1", "A", 0.5), v("P2", "A", 0.8), v("P3", "B", 0.8)], votes("AAB"), first)
        assert lower.stability == 1.0 and lower.status == "diverging"

    def test_no_impasse_when_someone_moved(self):
        first = assess(1, votes("AABB"), [], None)
        c = assess(2, votes("ABAB"), votes("AABB"), first)  # two swapped: same 50/50 split, people moved
        assert c.stability == 0.5 and c.status != "impasse"

    def test_impasse_continues_once_reached(self):
        first = split()
        second = assess(2, votes("AAB"), votes("AAB"), first)
        third = assess(3, votes("AAB"), votes("AAB"), second)
        assert (second.status, third.status) == ("impasse", "impasse")

    def test_impasse_when_a_split_repeats_after_a_move(self):
        first = assess(1, votes("AABB"), [], None)
        moved = assess(2, votes("ABAB"), votes("AABB"), first)
        again = assess(3, votes("ABAB"), votes("ABAB"), moved)
        assert again.stability == 1.0 and again.agreement == moved.agreement
        assert again.status == "impasse"

    def test_diverging_when_agreement_falls(self):
        before = assess(1, votes("AAAB"), [], None)
        c = assess(2, votes("AABB"), votes("AAAB"), before)
        assert c.status == "diverging" and c.agreement < before.agreement
        assert before.status == "converged" and c.reason == "agreement fell from 75% to 50%"

    def test_refining_when_agreement_grows(self):
        before = split()
        c = assess(2, [v("P1", "A", 0.8), v("P2", "A", 0.8), v("P3", "A", 0.2), v("P4", "B", 0.8)],
                   votes("AAB"), before)
        assert c.status == "refining" and c.agreement > before.agreement
        assert c.reason == f"agreement {before.agreement:.0%} → {c.agreement:.0%}"

    def test_stop_requests_share(self):
        vs = [v("P1", "A", cont=False), v("P2", "A", cont=False), v("P3", "B", cont=True)]
        assert assess(1, vs, [], None).stop_requests == round(2 / 3, 4)
        assert assess(1, votes("AB", cont=True), [], None).stop_requests == 0.0
        assert assess(1, votes("AB", cont=False), [], None).stop_requests == 1.0

    def test_no_votes(self):
        c = assess(1, [], [], None)
        assert (c.status, c.agreement, c.leader, c.stop_requests) == ("refining", 0.0, None, 0.0)

    def test_votes_from_too_few_of_the_advisors_who_spoke_neither_converge_nor_settle(self):
        """A first vote reads only the recommendations the moderator placed under one option: one advisor of three
        placed, sure and asking to stop, is no council's agreement and no council's wish to stop."""
        one = [v("P1", "A", 0.9, cont=False)]
        c = assess(1, one, [], None, seats=3)
        assert (c.status, c.voters, c.seats, c.stop_requests) == ("refining", 1, 3, round(1 / 3, 4))
        assert c.reason == "only 1 of 3 advisors' votes could be read"
        assert should_stop(c, round_no=1, min_rounds=1) is None
        two_of_six = assess(1, votes("AA", 0.9, cont=False), [], None, seats=6)
        assert two_of_six.status == "refining" and should_stop(two_of_six, round_no=1, min_rounds=1) is None
        # two of three is a quorum: they converge, or settle when they ask to stop
        assert assess(1, votes("AA", 0.9), [], None, seats=3).status == "converged"
        settled = assess(1, votes("AB", 0.9, cont=False), [], None, seats=3)
        assert settled.stop_requests == round(2 / 3, 4) and should_stop(settled, round_no=1, min_rounds=1) == "settled"
        assert assess(1, one, [], None).status == "refining"  # seats not counted: the votes speak for themselves
        assert should_stop(assess(1, one, [], None), round_no=1, min_rounds=1) == "settled"

    def test_similarity_is_reported_not_decisive(self):
        first = split()
        c = assess(2, votes("AAB"), votes("AAB"), first, similarity=0.97)
        assert c.similarity == 0.97 and c.status == "impasse"
        c = assess(1, votes("AAB"), [], None, similarity=0.99)
        assert c.status == "refining"

    def test_wire_round_trip(self):
        c = split()
        assert Convergence.model_validate(c.to_wire()) == c
        assert set(c.to_wire()) >= {"round", "status", "agreement", "leader", "stopRequests", "reason"}


# --- should_stop ----------------------------------------------------------------------------------------------
def conv(status: str = "refining", stop_requests: float = 0.0, reason: str = "why") -> Convergence:
    return Convergence(round=1, status=status, agreement=0.5, leader="A", stability=None,
                       stop_requests=stop_requests, reason=reason)


class TestShouldStop:
    def test_converged_stops_even_before_min_rounds(self):
        c = conv("converged", reason="80% backs A")
        assert should_stop(c, round_no=1, min_rounds=3) == "converged"

    def test_impasse_stops(self):
        assert should_stop(conv("impasse", reason="stuck"), round_no=2, min_rounds=5) == "impasse"

    @pytest.mark.parametrize("status", ["refining", "diverging"])
    def test_unsettled_goes_on(self, status):
        assert should_stop(conv(status), round_no=4, min_rounds=1) is None

    def test_two_thirds_stop_after_min_rounds(self):
        c = conv(stop_requests=round(2 / 3, 4))
        assert should_stop(c, round_no=2, min_rounds=2) == "settled"
        assert should_stop(c, round_no=3, min_rounds=2) is not None

    def test_two_thirds_ignored_before_min_rounds(self):
        assert should_stop(conv(stop_requests=1.0), round_no=1, min_rounds=2) is None

    def test_less_than_two_thirds_goes_on(self):
        assert should_stop(conv(stop_requests=0.5), round_no=5, min_rounds=1) is None
        assert should_stop(conv(stop_requests=0.66), round_no=5, min_rounds=1) is None

    def test_stop_requests_from_assess(self):
        vs = [v("P1", "A", cont=False), v("P2", "B", cont=False), v("P3", "C", cont=True)]
        c = assess(2, vs, [], None)
        assert c.status == "refining"
        assert should_stop(c, round_no=2, min_rounds=2) is not None
        assert should_stop(c, round_no=1, min_rounds=2) is None


def test_convergence_module_imports_on_its_own():
    done = subprocess.run([sys.executable, "-c", "import council.session.state.convergence"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]


def test_position_similarity_is_reported_with_any_ranker_and_never_decides():
    from council.session.state.convergence import position_similarity

    assert position_similarity([]) is None
    same = position_similarity([("split the billing module first", "split the billing module first")])
    assert same == 1.0
    different = position_similarity([("split the billing module first", "keep the monolith and add caching")])
    assert 0.0 <= different < 0.5

    class Broken:
        def score(self, query, docs):
            raise RuntimeError("not warm")

    assert position_similarity([("a b", "a b")], Broken()) == 1.0  # falls back to word overlap

    class Fixed:
        def score(self, query, docs):
            return [0.97]  # "same topic, opposite stance" scores like this with embeddings

    votes_split = [Vote(persona="P", option_id="A", confidence=0.8, rationale="r"),
                   Vote(persona="Q", option_id="B", confidence=0.8, rationale="r")]
    sim = position_similarity([("x", "y")], Fixed())
    c = assess(2, votes_split, votes_split, None, similarity=sim)
    assert c.similarity == 0.97 and c.status != "converged"  # high similarity alone never converges


def test_one_vote_read_again_after_a_round_without_a_quorum_is_no_impasse():
    """Only the architect could be read in the first vote (1 of 3); in the next round the other two abstain and it
    votes A again: "Impasse: the same split as in the last cycle; nobody moved", and the debate stopped — one vote
    is no split, and the round before did not speak for the council."""
    first = assess(1, [v("P1", "A", 0.9)], [], None, seats=3)
    second = assess(2, [v("P1", "A", 0.9, cycle=2)], [v("P1", "A", 0.9)], first, seats=1)
    assert second.status == "refining" and should_stop(second, round_no=2, min_rounds=1) is None
    quorate_first = assess(1, [v("P1", "A"), v("P2", "B")], [], None, seats=2)
    repeated = assess(2, [v("P1", "A", cycle=2), v("P2", "B", cycle=2)], [v("P1", "A"), v("P2", "B")],
                      quorate_first, seats=2)
    assert repeated.status == "impasse"  # a real split, repeated after a quorate round, is still an impasse
