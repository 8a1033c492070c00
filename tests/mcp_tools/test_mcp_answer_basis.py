"""council_consult over MCP shows what its answer rests on (issue 20): the Devil's Advocate's advice carries its
counterpoints (after one repair of a reply without them) and they reach the synthesis's risks; the result says what
the answer hinges on (each with the question to revisit) and whether the debate confirmed the first vote."""

from __future__ import annotations

from .conftest import PROBLEM

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
DEVIL = "Devil's Advocate"
COUNTERPOINT = "A split doubles the on-call load of a team of four."
FIRST = {"position": "Devil's Advocate prefers option B.", "summary": ["s1", "s2"], "advice": ["a1", "a2"],
         "risks": [COUNTERPOINT], "assumptions": [], "questions": [], "next_steps": ["n1", "n2"],
         "confidence": "medium", "confidence_rationale": "scripted", "vote_confidence": 0.9, "continue_debate": True}
SCRIPT = {"rules": [  # the Devil's Advocate's first reply has no counterpoints; its repair and later replies do
    {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1}, "times": 1, "reply": {**FIRST, "risks": []}},
    {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1}, "reply": FIRST},
    {"when": {"schema": "PersonaReply", "purpose": DEVIL},
     "reply": {**FIRST, "option_id": "B", "changed_position": False, "change_reason": ""}}]}


async def test_consult_devils_advocate_rule_hinges_and_debate_change(mcp_client):
    async with mcp_client(script=SCRIPT) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "selected_personas": COUNCIL,
                                                  "depth": "brief"})
    assert not r.isError  # the SDK client checked structuredContent against the tool's outputSchema
    data = r.structuredContent
    devil = next(x for x in data["responses"] if x["persona"] == DEVIL)
    assert devil["advice"] == f"- a1\n- a2\n- Counterpoint: {COUNTERPOINT}"  # as the sidecar composed it
    assert not any("Counterpoint" in x["advice"] for x in data["responses"] if x["persona"] != DEVIL)
    assert devil["counterpoints"] == [COUNTERPOINT] and COUNTERPOINT in data["synthesis"]["risks_tradeoffs"]
    assert not any("counterpoint" in n for n in data["synthesis"]["notes"])  # repaired, not shipped with a note
    # nobody could be asked (no elicitation): both questions were assumed; the scripted chair hinges on the first
    assert data["hinges"] == [{"assumption": data["assumptions"][0], "criticality": "high",
                               "if_false": "Wait until more information is available.",
                               "question_id": data["hinges"][0]["question_id"]}]
    assert data["hinges"][0]["question_id"]
    debate = data["debate"]
    assert debate["verdict"] == "confirmed" and debate["first_counts"] == debate["final_counts"] == {"A": 2, "B": 1}
    text = r.content[0].text
    assert "The debate confirmed the first vote: **A · Staged approach** won both" in text
    assert f"Hinges on:\n- **{data['assumptions'][0]}** If not, the council would recommend: Wait" in text
