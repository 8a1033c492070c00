"""Pure pieces of debate and synthesis: cycle resolution, persona schema, consolidation, dissent, choices."""

from __future__ import annotations

import pytest
from unit_helpers import Builder

from council.protocol.errors import CouncilError
from council.session.debate import latest_responses, persona_schema, resolve_cycle
from council.session.engine import _choice_value
from council.session.entities import Choice, Depth, SessionSettings
from council.session.synthesis import consolidate, dissent


class Contract:
    def __init__(self, always_include: bool = False) -> None:
        self.always_include = always_include


def debated(settings=None, personas=("Alpha", "Beta", "Gamma"), **per_persona):
    """A session in debate with cycle 1 spoken; ``per_persona[name]`` overrides that persona's response."""
    b = Builder(settings or SessionSettings(), personas)
    b.debating()
    b.start_cycle(1)
    for name in personas:
        b.speak(name, 1, **per_persona.get(name, {}))
    return b


def test_latest_responses_are_of_the_last_cycle():
    b = debated()
    b.conclude(1)
    b.start_cycle(2)
    b.speak("Beta", 2)
    assert [x.persona for x in latest_responses(b.s)] == ["Beta"]
    assert [x.persona for x in latest_responses(b.s, 1)] == ["Alpha", "Beta", "Gamma"]


class TestResolveCycle:
    def test_two_thirds_stop(self):
        b = debated(Alpha={"continue_debate": False}, Beta={"continue_debate": False})
        res = resolve_cycle(b.s, 1)
        assert res.stop and "two thirds" in res.reason and not res.all_failed
        assert "2 of 3 see no need to continue" in res.summary

    def test_one_third_continues(self):
        b = debated(Alpha={"continue_debate": False})
        assert not resolve_cycle(b.s, 1).stop

    def test_min_cycles_prevents_early_stop(self):
        b = debated(
            SessionSettings(min_cycles=2),
            **{n: {"continue_debate": False} for n in ("Alpha", "Beta", "Gamma")},
        )
        assert not resolve_cycle(b.s, 1).stop

    def test_all_abstained(self):
        b = debated(**{n: {"abstained": True} for n in ("Alpha", "Beta", "Gamma")})
        res = resolve_cycle(b.s, 1)
        assert res.stop and res.all_failed and "abstained: Alpha, Beta, Gamma" in res.summary
        assert res.summary.startswith("Cycle 1: 0 of 3 advisors")

    def test_abstainers_do_not_count_towards_stop(self):
        b = debated(Alpha={"abstained": True, "continue_debate": False}, Beta={"continue_debate": False})
        assert not resolve_cycle(b.s, 1).stop  # 1 of 2 active wants to stop

    def test_changed_position_without_reason_flagged(self):
        b = debated(
            Alpha={"changed_position": True, "change_reason": "new cost data"},
            Beta={"changed_position": True},
        )
        summary = resolve_cycle(b.s, 1).summary
        assert "Alpha changed position (new cost data)" in summary
        assert "Beta changed position (no new argument named — flagged as conformity)" in summary

    def test_everyone_held_only_after_cycle_one(self):
        b = debated()
        assert "held their position" not in resolve_cycle(b.s, 1).summary
        b.conclude(1)
        b.start_cycle(2)
        for n in ("Alpha", "Beta", "Gamma"):
            b.speak(n, 2)
        assert "everyone held their position" in resolve_cycle(b.s, 2).summary


@pytest.mark.parametrize(
    ("depth", "lo", "hi"), [(Depth.BRIEF, 2, 3), (Depth.STANDARD, 5, 7), (Depth.DEEP, 10, 14)]
)
def test_persona_schema_bullets_follow_depth(depth, lo, hi):
    b = Builder(SessionSettings(depth=depth))
    b.create()
    schema = persona_schema(b.s)
    assert schema["title"] == "PersonaReply"
    for field in ("summary", "advice", "next_steps"):
        assert (schema["properties"][field]["minItems"], schema["properties"][field]["maxItems"]) == (lo, hi)
    assert schema["properties"]["risks"]["maxItems"] == 5
    # every field is required (a grammar would otherwise let a model skip them) and no property carries prose
    assert set(schema["required"]) == set(schema["properties"])
    assert not any("description" in spec or "title" in spec for spec in schema["properties"].values())
    assert "changed_position" in schema["properties"]
    assert "changed_position" not in persona_schema(b.s, cycle=1)["properties"]
    assert "minItems" not in schema["properties"]["risks"]


def _voted(b: Builder, votes: dict[str, str]):
    b.conclude(1)
    b.options()
    for name, option in votes.items():
        b.vote(name, option, 1)
    from council.session import records as r
    from council.session.voting import tally_votes

    b.apply(r.TallySet(at=b.at(), tally=tally_votes(b.s.options, b.s.votes)))
    return b


class TestDissent:
    def test_voters_against_winner_and_devils_advocate(self):
        b = _voted(
            debated(Gamma={"risks": ["r1", "r2", "r3", "r4"]}), {"Alpha": "A", "Beta": "A", "Gamma": "B"}
        )
        contracts = {"Alpha": Contract(), "Beta": Contract(), "Gamma": Contract(always_include=True)}
        out = dissent(b.s, contracts)
        assert out[0] == "Gamma voted B: why"
        assert out[1] == "Gamma (counterpoints): Gamma position in cycle 1 Risks: r1; r2; r3"
        assert len(out) == 2

    def test_devils_advocate_present_even_when_agreeing(self):
        b = _voted(debated(), {"Alpha": "A", "Beta": "A", "Gamma": "A"})
        out = dissent(b.s, {"Alpha": Contract(always_include=True)})
        assert out == ["Alpha (counterpoints): Alpha position in cycle 1 Risks: r"]

    def test_abstained_devils_advocate_has_no_counterpoints(self):
        b = _voted(debated(Alpha={"abstained": True}), {"Beta": "A", "Gamma": "A"})
        assert dissent(b.s, {"Alpha": Contract(always_include=True)}) == []

    def test_no_winner_no_voter_dissent(self):
        b = _voted(debated(), {"Alpha": "A", "Beta": "B"})
        assert b.s.tally.consensus == "tie"
        assert dissent(b.s, {}) == []


class TestConsolidate:
    def test_follows_the_winner(self):
        b = _voted(
            debated(Gamma={"next_steps": ["gamma step"], "risks": ["gamma risk"]}),
            {"Alpha": "A", "Beta": "A", "Gamma": "B"},
        )
        reply = consolidate(b.s, latest_responses(b.s))
        assert reply.recommendation == "Do it"  # the winning option's label
        assert reply.agreements == ["Alpha position in cycle 1", "Beta position in cycle 1"]
        assert reply.conflicts == ["Gamma: Gamma position in cycle 1"]
        assert reply.next_steps == ["n"]  # deduplicated, from the winners only
        assert reply.risks_tradeoffs == ["r", "gamma risk"]
        assert "chair model was unavailable" in reply.notes[0]

    def test_without_vote_uses_first_active_position(self):
        b = debated(Alpha={"abstained": True}, Beta={"next_steps": []}, Gamma={"next_steps": []})
        reply = consolidate(b.s, latest_responses(b.s))
        assert reply.recommendation == "Beta position in cycle 1"
        assert reply.next_steps == ["Revisit with more information."]

    def test_everyone_abstained(self):
        b = debated(**{n: {"abstained": True} for n in ("Alpha", "Beta", "Gamma")})
        assert consolidate(b.s, latest_responses(b.s)).recommendation.startswith("The council could not")


class TestChoiceValue:
    Q = type(
        "Q", (), {"choices": [Choice(label="This quarter", value="q"), Choice(label="This year", value="y")]}
    )

    @pytest.mark.parametrize(
        ("choice", "text", "want"),
        [
            ("y", "", "y"),
            ("This quarter", "", "q"),
            (None, "2", "y"),
            (None, " 1 ", "q"),
            (None, "this YEAR", "y"),
            (None, "Q", "q"),
            (None, "3", "3"),
            (None, "0", "0"),
            (None, "Next decade, honestly", "Next decade, honestly"),
        ],
    )
    def test_mapping(self, choice, text, want):
        assert _choice_value(self.Q, choice, text) == want

    def test_unknown_choice_refused(self):
        with pytest.raises(CouncilError) as info:
            _choice_value(self.Q, "decade", "")
        assert info.value.details == {"choice": "decade", "choices": ["q", "y"]}
