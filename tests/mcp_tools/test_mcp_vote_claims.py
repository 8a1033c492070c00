"""What a consult's result says of the council's vote, read by an MCP client (the official SDK's, against a real
``council mcp`` with scripted models): its text says what its structured fields hold, and the structured content
validates against the outputSchema the server declares for the tool."""

from __future__ import annotations

from typing import Any

import jsonschema
import mcp.types as types

from .conftest import PROBLEM

ARCH, DEV, DEVIL, PM = "Software Architect", "Senior Developer", "Devil's Advocate", "Product Manager"


def reply(who: str, cycle: int, option: str, confidence: float = 0.8, changed: bool = False) -> dict[str, Any]:
    """A PersonaReply of standard depth: cycle 1's recommendation names the option the scripted moderator places it
    under; later cycles vote on it."""
    out: dict[str, Any] = {
        "position": f"{who} prefers option {option} in cycle {cycle}.", "summary": [f"s{i}" for i in range(5)],
        "advice": [f"a{i}" for i in range(5)], "risks": [f"{who} risk"], "assumptions": [], "questions": [],
        "next_steps": [f"n{i}" for i in range(5)], "confidence": "medium", "confidence_rationale": "scripted",
        "vote_confidence": confidence, "continue_debate": True}
    if cycle > 1:
        out |= {"option_id": option, "changed_position": changed, "change_reason": "a reason" if changed else ""}
    return out


def votes(who: str, *options: str, confidence: float = 0.8) -> list[dict[str, Any]]:
    """One rule per cycle: ``who`` votes ``options[i]`` in cycle i + 1 (changing when it differs from the last)."""
    return [{"when": {"schema": "PersonaReply", "purpose": who, "cycle": c},
             "reply": reply(who, c, o, confidence, changed=c > 1 and o != options[c - 2])}
            for c, o in enumerate(options, start=1)]


async def consult(mcp_client, script: dict[str, Any], personas: list[str]) -> types.CallToolResult:
    async with mcp_client(script=script) as s:
        [tool] = [x for x in (await s.list_tools()).tools if x.name == "council_consult"]
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "selected_personas": personas,
                                                  "depth": "standard", "speculate": "never"})
    assert not r.is_error, r.content[0].text
    jsonschema.Draft202012Validator(tool.output_schema).validate(r.structured_content)
    return r


async def test_an_advisor_who_changed_and_came_back_is_in_the_consult_text(mcp_client):
    """The architect votes A, B, then A: the result's debate lists it under ``returned``, and the text said only
    "The debate confirmed the first vote" with nothing of the vote it changed and came back to (the chat's answer
    says it: the consult's text is the one an agent reads)."""
    r = await consult(mcp_client, {"rules": [*votes(ARCH, "A", "B", "A"), *votes(DEV, "A", "A", "A"),
                                             *votes(DEVIL, "B", "B", "B")]}, [ARCH, DEV, DEVIL])
    debate = r.structured_content["debate"]
    assert (debate["verdict"], debate["moves"], debate["returned"]) == ("confirmed", [], [ARCH])
    assert ("No final vote differs from the first: Software Architect changed their vote during the debate and came "
            "back to it.") in r.content[0].text


async def test_a_tie_is_not_the_vote_of_the_option_that_leads_on_confidence(mcp_client):
    """A 1 · B 1, B ahead on confidence only: the text said "Vote: Wait (tie)." as if the vote had chosen Wait, under
    a debate line that says the tie stood (the chat's answer: "a tie between A and B on votes; B leads on
    confidence")."""
    r = await consult(mcp_client, {"rules": [*votes(PM, "A", "A", "A", confidence=0.6),
                                             *votes(DEVIL, "B", "B", "B", confidence=0.9)]}, [PM, DEVIL])
    data, text = r.structured_content, r.content[0].text
    assert (data["vote"]["consensus"], data["vote"]["counts"], data["synthesis"]["dissent"]) == (
        "tie", {"A": 1, "B": 1}, [])
    assert "Vote: a tie between Staged approach and Wait on votes; Wait leads on confidence." in text
    assert "Vote: Wait (tie)." not in text


async def test_an_option_that_leads_without_a_majority_is_not_the_vote(mcp_client):
    """A 2 · B 1 in the first vote; the two on A give unusable replies from then on and the Devil's Advocate votes B:
    the final vote is B 1 of three seats, no majority. The text said "Vote: Wait (no majority)." as if the vote had
    chosen Wait; it words it as the chat's answer does: "Vote: no majority; Wait leads."."""
    garbage = [{"when": {"schema": "PersonaReply", "purpose": who, "cycle": c}, "reply": "garbage"}
               for who in (ARCH, DEV) for c in (2, 3)]
    r = await consult(mcp_client, {"rules": [*votes(ARCH, "A"), *votes(DEV, "A"), *garbage,
                                             *votes(DEVIL, "B", "B", "B")]}, [ARCH, DEV, DEVIL])
    data, text = r.structured_content, r.content[0].text
    assert (data["vote"]["consensus"], data["vote"]["winner"], data["debate"]["dropped"]) == ("none", "B", [ARCH, DEV])
    assert "Vote: no majority; Wait leads." in text and "Vote: Wait (no majority)." not in text
