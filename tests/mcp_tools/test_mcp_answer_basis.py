"""council_consult over MCP shows what its answer rests on (issue 20): the Devil's Advocate's advice carries its
counterpoints (after one repair of a reply without them) and they reach the synthesis's risks; the result says what
the answer hinges on (each with the question to revisit) and whether the debate confirmed the first vote."""

from __future__ import annotations

import mcp.types as types

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
    assert not r.is_error  # the SDK client checked structuredContent against the tool's outputSchema
    data = r.structured_content
    devil = next(x for x in data["responses"] if x["persona"] == DEVIL)
    assert devil["advice"] == f"- a1\n- a2\n- Counterpoint: {COUNTERPOINT}"  # as the sidecar composed it
    assert not any("Counterpoint" in x["advice"] for x in data["responses"] if x["persona"] != DEVIL)
    assert devil["counterpoints"] == [COUNTERPOINT] and COUNTERPOINT in data["synthesis"]["risks_tradeoffs"]
    assert not any("counterpoint" in n for n in data["synthesis"]["notes"])  # repaired, not shipped with a note
    # nobody could be asked (no elicitation): both questions were assumed; the first had another likely answer
    # favouring another option (the engine's hinge), and the scripted chair hinges on it too
    said = "Wait until more information is available."
    [goal] = [c for c in data["clarifications"] if c["assumption"] == data["assumptions"][0]]
    assert data["hinges"] == [{"assumption": data["assumptions"][0], "criticality": "high", "if_false": said,
                               "question_id": data["hinges"][0]["question_id"], "question": goal["question"],
                               "basis": "assumed", "chair": said,
                               "alternatives": [{"answer": "Cut costs", "favours": "Wait", "option_id": "B"}]}]
    assert data["hinges"][0]["question_id"]
    debate = data["debate"]
    assert debate["verdict"] == "confirmed" and debate["first_counts"] == debate["final_counts"] == {"A": 2, "B": 1}
    text = r.content[0].text
    assert "The debate confirmed the first vote: **A · Staged approach** won both" in text
    assert (f"Hinges on:\n- **{data['assumptions'][0]}** _(assumed: you skipped “{goal['question']}”)_ If instead "
            f"*Cut costs*, the council would lean to **B · Wait**. The chair: {said}") in text


AGREES = {"rules": [  # the Devil's Advocate recommends and votes A like everyone: a unanimous vote
    {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1},
     "reply": {**FIRST, "position": "Devil's Advocate prefers option A."}},
    {"when": {"schema": "PersonaReply", "purpose": DEVIL},
     "reply": {**FIRST, "option_id": "A", "changed_position": False, "change_reason": ""}}]}


async def test_a_consult_result_lists_the_users_answers_its_hinges_and_no_dissent_under_a_unanimous_vote(mcp_client):
    """Issue 31 on the consult tools: the user's answers (given through elicitation) in the result's text beside the
    assumptions, the hinge the engine knows from the clarifier's plan, and no dissent when everyone voted A."""
    async def elicit(_ctx, params):
        if "main goal" in params.message:
            return types.ElicitResult(action="accept", content={"choice": "Reduce risk"})
        return types.ElicitResult(action="decline")

    async with mcp_client(script=AGREES, elicit=elicit) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "selected_personas": COUNCIL,
                                                  "depth": "brief"})
    assert not r.is_error, r.content[0].text
    data, text = r.structured_content, r.content[0].text
    goal = next(c for c in data["clarifications"] if c["status"] == "answered")
    assert data["vote"]["consensus"] == "unanimous" and data["synthesis"]["dissent"] == []
    assert COUNTERPOINT in data["synthesis"]["risks_tradeoffs"]
    assert f"You told the council:\n- {goal['question']} → **Reduce risk**\n\nAssumed:\n- " in text
    [hinge] = [h for h in data["hinges"] if h["basis"] == "answered"]
    assert hinge["assumption"] == "Reduce risk" and hinge["question_id"]
    assert f"- You answered “{goal['question']}”: **Reduce risk**. If instead *Cut costs*, the council" in text


DRAFT = "Rewrite the billing service in Rust right now."
CUT_OFF_CHAIR = {"rules": [{"when": {"schema": "SynthesisReply"},  # streams a recommendation, then breaks off
                            "reply": '{"recommendation": "' + DRAFT + '", "agreements": ["x"], "risks'}]}


async def test_a_withdrawn_draft_is_said_in_the_consults_progress_and_is_not_the_answer(mcp_client):
    """Issue 31 on the consult tools: the answer so far is reported as the chair writes it; when that draft cannot
    be used, the progress says it is withdrawn, and the result is the answer that replaced it."""
    progress: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        if message:
            progress.append(message)

    async with mcp_client(script=CUT_OFF_CHAIR) as s:
        r = await s.call_tool("council_consult", {"user_problem": PROBLEM, "selected_personas": COUNCIL,
                                                  "depth": "brief"}, progress_callback=on_progress)
    assert not r.is_error, r.content[0].text
    withdrawn = progress.index("The chair's draft could not be used: it is withdrawn, and the final answer "
                               "replaces it.")
    pieces = [i for i, m in enumerate(progress) if m.startswith(("The council's answer so far: ",
                                                                 "The council's answer, continued: "))]
    said = " ".join(progress[i].split(": ", 1)[1] for i in pieces)  # the draft in whole words, as it came
    assert said and DRAFT.startswith(said) and len(said.split()) >= len(DRAFT.split()) - 1
    assert pieces[-1] < withdrawn < progress.index("The chair wrote the synthesis.")
    assert DRAFT not in r.content[0].text and r.structured_content["synthesis"]["source"] == "consolidated"
