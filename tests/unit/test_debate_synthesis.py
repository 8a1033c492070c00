"""Pure pieces of debate and synthesis: cycle summaries, persona schema, consolidation, dissent, choices."""

from __future__ import annotations

import pytest
from unit_helpers import DEBATE_KEYS, Builder, persona_reply

from council.errors import CouncilError
from council.present.debate import cycle_summary
from council.session.state.convergence import Convergence, assess, should_stop
from council.session.state.entities import Choice, Depth, SessionSettings
from council.session.steps.answers import choice_value
from council.session.steps.persona_reply import persona_schema
from council.session.steps.synthesis import consolidate, dissent


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
    assert [x.persona for x in b.s.latest_responses()] == ["Beta"]
    assert [x.persona for x in b.s.latest_responses(1)] == ["Alpha", "Beta", "Gamma"]


def conv(round_no: int = 1, status: str = "refining", reason: str = "first vote", **over) -> Convergence:
    data = dict(round=round_no, status=status, agreement=0.5, leader=None, stability=None, stop_requests=0.0,
                reason=reason)
    data.update(over)
    return Convergence(**data)


class TestCycleSummary:
    """The cycle summary people read (council.present.debate.cycle_summary) is written from the stored data."""

    def test_who_spoke_and_the_vote(self):
        b = debated()
        b.options()
        for name, option in (("Alpha", "A"), ("Beta", "A"), ("Gamma", "B")):
            b.vote(name, option, 1)
        b.conclude(1, convergence=conv(leader="A", agreement=0.6667))
        summary = cycle_summary(b.s, 1)
        assert "**After cycle 1:** 3 of 3 advisors gave a position." in summary
        # the first votes are placed after the persona lines were shown, so the summary names who voted for what
        assert "Votes: A 2 (Alpha and Beta) · B 1 (Gamma)." in summary
        assert "First vote: **A · Do it** leads with 67% of the weighted vote." in summary
        assert "{" not in summary and "object" not in summary

    def test_without_convergence_no_vote_line(self):
        b = debated()
        b.conclude(1)
        assert cycle_summary(b.s, 1) == "**After cycle 1:** 3 of 3 advisors gave a position.\n\n"

    def test_impasse_and_stop_in_words(self):
        b = debated()
        b.conclude(1, convergence=conv(status="impasse", reason="stuck"), stop_reason="impasse")
        summary = cycle_summary(b.s, 1)
        assert "Impasse: the same split as in the last cycle; nobody moved." in summary
        assert "The debate ends here: the same split twice in a row" in summary

    def test_all_abstained(self):
        b = debated(**{n: {"abstained": True} for n in ("Alpha", "Beta", "Gamma")})
        b.conclude(1)
        summary = cycle_summary(b.s, 1)
        assert summary.startswith("**After cycle 1:** 0 of 3 advisors")
        assert "Abstained: Alpha, Beta and Gamma." in summary

    def test_changed_position_with_and_without_reason(self):
        b = debated(
            Alpha={"changed_position": True, "change_reason": "new cost data"},
            Beta={"changed_position": True, "conformity_flag": True},
        )
        b.conclude(1)
        summary = cycle_summary(b.s, 1)
        assert "Alpha changed position: new cost data." in summary
        assert "Beta changed position: without naming a new argument. ⚠️ possible conformity" in summary
        assert "Gamma changed" not in summary

    def test_abstainer_who_changed_is_not_reported(self):
        b = debated(Alpha={"abstained": True, "changed_position": True})
        b.conclude(1)
        summary = cycle_summary(b.s, 1)
        assert "Alpha changed" not in summary and "2 of 3 advisors" in summary

    def test_only_this_cycles_votes_are_counted(self):
        b = debated()
        b.options()
        for name in ("Alpha", "Beta", "Gamma"):
            b.vote(name, "B", 1)
        b.conclude(1)
        b.start_cycle(2)
        for name in ("Alpha", "Beta", "Gamma"):
            b.speak(name, 2, **({"option_id": "A"} if name == "Alpha" else {}))
        b.vote("Alpha", "A", 2)
        b.conclude(2, convergence=conv(2, "diverging", "fell", agreement=0.4), )
        # Alpha's line showed its vote, so the count is not followed by names; cycle 1's votes are not in it
        votes = next(x for x in cycle_summary(b.s, 2).splitlines() if x.startswith("Votes:"))
        assert votes.rstrip() == "Votes: A 1."
        assert [v.option_id for v in b.s.votes_in(1)] == ["B", "B", "B"]
        assert [v.persona for v in b.s.votes_in(2)] == ["Alpha"]

    def test_assess_on_a_real_split(self):
        b = debated()
        b.options()
        for name, option in (("Alpha", "A"), ("Beta", "A"), ("Gamma", "B")):
            b.vote(name, option, 1)
        c = assess(1, b.s.votes_in(1), [], None)
        assert (c.status, c.leader, c.agreement) == ("refining", "A", round(1.4 / 2.1, 4))
        assert c.stop_requests == 1.0  # Builder votes default to continue_debate = false
        assert should_stop(c, round_no=1, min_rounds=2) is None
        assert should_stop(c, round_no=1, min_rounds=1) == "settled"


@pytest.mark.parametrize(
    ("depth", "lo", "hi"), [(Depth.BRIEF, 2, 3), (Depth.STANDARD, 5, 7), (Depth.DEEP, 10, 14)]
)
def test_persona_schema_bullets_follow_depth(depth, lo, hi):
    b = Builder(SessionSettings(depth=depth))
    b.create()
    assert "changed_position" not in persona_schema(b.s)["properties"]  # no options yet: nothing to vote on
    b.options()
    schema = persona_schema(b.s)
    assert schema["title"] == "PersonaReply"
    first = persona_schema(b.s, cycle=1)
    for field in ("summary", "advice", "next_steps"):
        assert (first["properties"][field]["minItems"], first["properties"][field]["maxItems"]) == (lo, hi)
        # issue 34: a later cycle adds at most one new point to each (the earlier ones stand after it), or none
        assert (schema["properties"][field]["minItems"], schema["properties"][field]["maxItems"]) == (0, 1)
    assert first["properties"]["risks"]["maxItems"] == hi
    assert schema["properties"]["risks"]["maxItems"] == 1 and "minItems" not in schema["properties"]["risks"]
    # every field is required (a grammar would otherwise let a model skip them) and no property carries prose
    assert set(schema["required"]) == set(schema["properties"])
    assert not any("description" in spec or "title" in spec for spec in schema["properties"].values())
    assert "changed_position" in schema["properties"]
    assert "changed_position" not in persona_schema(b.s, cycle=1)["properties"]
    assert schema["properties"]["option_id"]["enum"] == ["A", "B"]
    vc = schema["properties"]["vote_confidence"]
    assert (vc["minimum"], vc["maximum"]) == (0, 1)
    first = persona_schema(b.s, cycle=1)
    assert not set(DEBATE_KEYS) & set(first["properties"]) and set(first["required"]) == set(first["properties"])
    assert "continue_debate" in first["properties"]
    assert first["properties"]["vote_confidence"] == vc  # the recommendation's confidence: the first vote's


@pytest.mark.parametrize("cycle", [1, 2, 3])
def test_script_helper_matches_the_schema_of_each_cycle(cycle):
    b = Builder()
    b.create()
    b.options()
    schema = persona_schema(b.s, cycle)
    assert set(persona_reply(cycle)) == set(schema["required"])
    assert schema["properties"]["risks"].get("minItems", 0) == (1 if cycle == 1 else 0)  # a first answer names one


def _voted(b: Builder, votes: dict[str, str]):
    b.conclude(1)
    b.options()
    for name, option in votes.items():
        b.vote(name, option, 1)
    from council.session.state import records as r
    from council.session.state.convergence import tally_votes

    b.apply(r.TallySet(at=b.at(), tally=tally_votes(b.s.options, b.s.votes)))
    return b


class TestDissent:
    def test_voters_against_winner_and_devils_advocate(self):
        b = _voted(
            debated(Gamma={"risks": ["r1", "r2", "r3", "r4"]}), {"Alpha": "A", "Beta": "A", "Gamma": "B"}
        )
        contracts = {"Alpha": Contract(), "Beta": Contract(), "Gamma": Contract(always_include=True)}
        out = dissent(b.s, contracts)
        # one entry per persona: the Devil's Advocate who voted against the winner is not listed twice
        assert out == ["Gamma voted B: why. Risks: r1; r2; r3"]

    def test_a_devils_advocate_that_voted_with_the_winner_is_no_dissent(self):
        """Issue 31: "unanimous for A" then "Dissent" quoting the Devil's Advocate, who voted A. Its counterpoints
        stay among the risks (``with_counterpoints``), never under dissent."""
        b = _voted(debated(), {"Alpha": "A", "Beta": "A", "Gamma": "A"})
        assert dissent(b.s, {"Alpha": Contract(always_include=True)}) == []

    def test_abstained_devils_advocate_has_no_counterpoints(self):
        b = _voted(debated(Alpha={"abstained": True}), {"Beta": "A", "Gamma": "A"})
        assert dissent(b.s, {"Alpha": Contract(always_include=True)}) == []

    def test_only_final_round_votes_make_dissent(self):
        b = debated()
        b.options()
        for name, option in (("Alpha", "A"), ("Beta", "A"), ("Gamma", "B")):
            b.vote(name, option, 1)
        b.conclude(1)
        b.start_cycle(2)
        for name in ("Alpha", "Beta", "Gamma"):
            b.speak(name, 2)
            b.vote(name, "A", 2)
        b.conclude(2)
        b.tally()
        assert b.s.tally.counts == {"A": 3, "B": 0} and b.s.tally.consensus == "unanimous"
        assert dissent(b.s, {"Gamma": Contract(always_include=True)}) == []  # it came round: no dissent left

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
        reply = consolidate(b.s, b.s.latest_responses())
        assert reply.recommendation == "Do it"  # the winning option's label
        assert reply.agreements == ["Alpha position in cycle 1", "Beta position in cycle 1"]
        assert reply.conflicts == ["Gamma: Gamma position in cycle 1"]
        assert reply.next_steps == ["n"]  # deduplicated, from the winners only
        assert reply.risks_tradeoffs == ["r", "gamma risk"]
        assert "chair model was unavailable" in reply.notes[0]

    def test_items_that_say_the_same_are_kept_once_whatever_their_spacing(self):
        """The replies' risks are kept each once by the key every list shares (``word_match.item_key``): two that
        differ only in case, spacing or a full stop are one risk (the two spaces kept both before)."""
        b = _voted(debated(Alpha={"risks": ["Data loss on rollback."]}, Beta={"risks": ["data  loss on ROLLBACK"]},
                           Gamma={"risks": ["Vendor lock-in"]}), {"Alpha": "A", "Beta": "A", "Gamma": "B"})
        reply = consolidate(b.s, b.s.latest_responses())
        assert reply.risks_tradeoffs == ["Data loss on rollback.", "Vendor lock-in"]

    def test_without_vote_uses_first_active_position(self):
        b = debated(Alpha={"abstained": True}, Beta={"next_steps": []}, Gamma={"next_steps": []})
        reply = consolidate(b.s, b.s.latest_responses())
        assert reply.recommendation == "Beta position in cycle 1"
        assert reply.next_steps == ["Revisit with more information."]

    def test_everyone_abstained(self):
        b = debated(**{n: {"abstained": True} for n in ("Alpha", "Beta", "Gamma")})
        assert consolidate(b.s, b.s.latest_responses()).recommendation.startswith("The council could not")


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
        assert choice_value(self.Q, choice, text) == want

    def test_unknown_choice_refused(self):
        with pytest.raises(CouncilError) as info:
            choice_value(self.Q, "decade", "")
        assert info.value.details == {"choice": "decade", "choices": ["q", "y"]}
