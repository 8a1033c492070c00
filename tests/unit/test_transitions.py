"""The session status transition table, pair by pair."""

from __future__ import annotations

import itertools

import pytest

from council.errors import CouncilError, ErrorCode
from council.session.state.entities import TERMINAL, TRANSITIONS, can_transition, check_transition
from council.session.state.entities import SessionStatus as S

# The table as the seed (plus the documented completed → debating extension; completed → clarifying is the seed's
# revisit of a skipped question) defines it, written out again.
EXPECTED = {
    S.CREATED: {S.CLARIFYING, S.DEBATING, S.CANCELLED},
    S.CLARIFYING: {S.CLARIFYING, S.DEBATING, S.FINAL, S.CANCELLED},
    S.DEBATING: {S.DEBATING, S.FINAL, S.CANCELLED},
    S.FINAL: {S.COMPLETED, S.CANCELLED},
    S.COMPLETED: {S.DEBATING, S.CLARIFYING},
    S.CANCELLED: set(),
}

PAIRS = list(itertools.product(list(S), list(S)))


def test_table_covers_every_status():
    assert set(TRANSITIONS) == set(S)
    assert {k: set(v) for k, v in TRANSITIONS.items()} == EXPECTED


@pytest.mark.parametrize(
    ("current", "target"), [p for p in PAIRS if p[1] in EXPECTED[p[0]]], ids=lambda s: s.value
)
def test_legal_transition_passes(current, target):
    assert can_transition(current, target)
    assert check_transition(current, target) is None


@pytest.mark.parametrize(
    ("current", "target"), [p for p in PAIRS if p[1] not in EXPECTED[p[0]]], ids=lambda s: s.value
)
def test_illegal_transition_raises_validation_with_allowed_targets(current, target):
    assert not can_transition(current, target)
    with pytest.raises(CouncilError) as info:
        check_transition(current, target)
    err = info.value
    assert err.code is ErrorCode.VALIDATION
    assert err.details["current"] == current.value
    assert err.details["target"] == target.value
    assert err.details["allowed"] == sorted(s.value for s in EXPECTED[current])
    assert current.value in err.message and target.value in err.message
    assert err.code.value == "validation"


def test_cancelled_is_terminal():
    assert S.CANCELLED in TERMINAL
    for target in S:
        assert not can_transition(S.CANCELLED, target)


def test_completed_only_goes_back_to_debating_or_to_revisit_a_question():
    assert [t for t in S if can_transition(S.COMPLETED, t)] == [S.CLARIFYING, S.DEBATING]
    assert S.COMPLETED in TERMINAL


def test_every_non_terminal_status_can_be_cancelled():
    for status in (S.CREATED, S.CLARIFYING, S.DEBATING, S.FINAL):
        assert can_transition(status, S.CANCELLED)
    assert not can_transition(S.COMPLETED, S.CANCELLED)


def test_nothing_returns_to_created():
    assert not any(can_transition(s, S.CREATED) for s in S)
