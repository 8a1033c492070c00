"""Issue 34: a later debate cycle's persona reply carries only what changed, over real JSON-RPC with scripted
models. A persona that keeps its position leaves summary, advice, next steps and risks empty and its earlier ones
stand — in the consult result, the snapshot (``council ask --json``) and the transcript, at the depth's count, the
Devil's Advocate's counterpoints folded into its advice once; one that changes its vote puts its new points first,
its earlier ones follow with a note that says so, and no repair is asked."""

from __future__ import annotations

import pytest

from .conftest import PROBLEM, persona_reply

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
DEVIL, MOVER = "Devil's Advocate", "Senior Developer"
FIRST_OPTION = {"Software Architect": "A", "Senior Developer": "A", DEVIL: "B"}  # where the moderator places each
INDEPENDENT = ("changed_position", "change_reason")
EMPTY = {"summary": [], "advice": [], "next_steps": [], "risks": []}
CAMEL = {"next_steps": "nextSteps"}  # the snapshot's spelling


def lists(who: str, tag: str) -> dict[str, list[str]]:
    """Five distinct items of each list (standard depth: 5–7) and one risk."""
    return {"summary": [f"{who} {tag} summary {i}." for i in range(5)],
            "advice": [f"{who} {tag} advice {i}." for i in range(5)],
            "next_steps": [f"{who} {tag} step {i}." for i in range(5)], "risks": [f"{who} {tag} risk."]}


def first_rules() -> list[dict]:
    return [{"when": {"schema": "PersonaReply", "purpose": who, "cycle": 1},
             "reply": {k: v for k, v in persona_reply(position=f"{who} prefers option {option}.",
                                                      vote_confidence=0.8, **lists(who, "first")).items()
                       if k not in INDEPENDENT}}
            for who, option in FIRST_OPTION.items()]


def kept(who: str, **over) -> dict:
    """A later cycle's reply that keeps the persona's position: a new rationale, no lists."""
    return persona_reply(**{"position": f"{who} still prefers option {FIRST_OPTION[who]}.",
                            "confidence_rationale": "The strongest opposing argument does not change the costs.",
                            "option_id": FIRST_OPTION[who], "continue_debate": False, **EMPTY, **over})


def later_rules(replies: dict[str, dict]) -> list[dict]:
    return [{"when": {"schema": "PersonaReply", "purpose": who}, "reply": reply} for who, reply in replies.items()]


def bullets(text: str) -> list[str]:
    return [line.removeprefix("- ") for line in text.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("speculate", ["always", "never"])  # cycle 2 beside the options call, or after it
async def test_a_persona_that_keeps_its_position_keeps_its_lists_at_the_depths_count(sidecar, speculate):
    script = {"rules": [*first_rules(), *later_rules({who: kept(who) for who in COUNCIL})]}
    async with sidecar(script=script) as sc:
        r = await sc.call("council/consult", {"user_problem": PROBLEM, "depth": "standard", "speculate": speculate,
                                              "selected_personas": COUNCIL})
        got = await sc.call("council/snapshot", {"sessionId": r["session_id"]})
    snap = got["session"]
    assert r["cycles"] >= 2 and [x["persona"] for x in r["responses"]] == COUNCIL
    for resp in r["responses"]:  # the consult result: the last cycle's position, the lists that stand
        who = resp["persona"]
        assert resp["cycle"] >= 2 and resp["position"] == f"{who} still prefers option {FIRST_OPTION[who]}."
        first = lists(who, "first")
        assert bullets(resp["summary"]) == first["summary"] and resp["next_steps"] == first["next_steps"]
        own = [f"Counterpoint: {DEVIL} first risk."] if who == DEVIL else []
        assert bullets(resp["advice"]) == first["advice"] + own  # folded once, after the carried advice
        assert resp["counterpoints"] == first["risks"]  # its risks, carried
    assert not any("depth asks for" in n for n in r["synthesis"]["notes"]), r["synthesis"]["notes"]  # no shortfall
    later = [x for x in snap["responses"] if x["cycle"] >= 2]
    assert len(later) >= 3 and not any(x["abstained"] for x in later)
    for x in later:  # the snapshot (council ask --json) keeps the whole stand too
        first = lists(x["persona"], "first")
        assert x["summary"] == first["summary"] and x["nextSteps"] == first["next_steps"]
        assert x["risks"] == first["risks"] and x.get("note") is None
        folded = [f"Counterpoint: {DEVIL} first risk."] if x["persona"] == DEVIL else []
        assert x["advice"] == first["advice"] + folded
        assert snap["metadata"]["models"][x["persona"]]["calls"] == 1 + len({y["cycle"] for y in later})  # no repair
    assert got["transcriptMarkdown"].count(f"- Counterpoint: {DEVIL} first risk.") == len(
        [x for x in snap["responses"] if x["persona"] == DEVIL])


def moved(**over) -> dict:
    """The mover's later reply: it changes its vote to B (an argument named), with no new points unless given."""
    return persona_reply(**{"position": f"{MOVER} now prefers option B.", "option_id": "B", "changed_position": True,
                            "change_reason": "Advisor B's on-call cost argument.", "continue_debate": False,
                            **EMPTY, **over})


NOTE = "changed position: its summary, advice, next steps still hold its points of cycle 1 (after any new ones)"


@pytest.mark.parametrize("new", [{}, {"summary": ["B first."], "advice": ["Move to B."], "next_steps": ["Plan B."]}])
async def test_a_changed_vote_puts_its_new_points_first_and_says_the_rest_came_before(sidecar, new):
    script = {"rules": [*first_rules(), *later_rules({MOVER: moved(**new),
                                                       **{who: kept(who) for who in COUNCIL if who != MOVER}})]}
    async with sidecar(script=script) as sc:
        r = await sc.call("council/consult", {"user_problem": PROBLEM, "depth": "standard", "speculate": "never",
                                              "selected_personas": COUNCIL})
        got = await sc.call("council/snapshot", {"sessionId": r["session_id"]})
    snap = got["session"]
    mover = next((x for x in snap["responses"] if x["persona"] == MOVER and x["cycle"] == 2), None)
    assert mover is not None, "it abstained"
    first = lists(MOVER, "first")
    assert mover["changedPosition"] and mover["optionId"] == "B" and not mover["abstained"]
    for key in ("summary", "advice", "next_steps"):  # never empty, never short: new first, then the earlier ones
        assert mover[CAMEL.get(key, key)] == [*new.get(key, []), *first[key]]
    assert snap["metadata"]["models"][MOVER]["calls"] == 2  # cycle 1 and cycle 2: no repair
    assert mover["note"] == NOTE and f"_Note: {NOTE}._" in got["transcriptMarkdown"]
    resp = next(x for x in r["responses"] if x["persona"] == MOVER)
    assert bullets(resp["summary"]) == [*new.get("summary", []), *first["summary"]]
