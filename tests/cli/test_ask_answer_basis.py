"""``council ask`` shows what the answer rests on (issue 20): the Devil's Advocate's counterpoints among the risks
after one repair of a reply without them and in its advice (``--json`` and the transcript file), what the answer
hinges on and what the debate changed — in the printed answer and in ``--json``'s snapshot."""

from __future__ import annotations

import json

import pytest

from .conftest import PROBLEM, run_council

FAST = ("--provider", "scripted", "--no-embeddings")
COUNCIL = "Software Architect,Senior Developer,Devil's Advocate"
DEVIL = "Devil's Advocate"
COUNTERPOINT = "A split doubles the on-call load of a team of four."
FIRST = {"position": "Devil's Advocate prefers option B.", "summary": [f"s{i}" for i in range(5)],
         "advice": [f"a{i}" for i in range(5)], "risks": [COUNTERPOINT], "assumptions": [], "questions": [],
         "next_steps": [f"n{i}" for i in range(5)], "confidence": "medium", "confidence_rationale": "scripted",
         "vote_confidence": 0.9, "continue_debate": True}
SCRIPT = {"rules": [  # the Devil's Advocate's first reply has no counterpoints; its repair does
    {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1}, "times": 1, "reply": {**FIRST, "risks": []}},
    {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1}, "reply": FIRST},
    {"when": {"schema": "PersonaReply", "purpose": DEVIL},
     "reply": {**FIRST, "option_id": "B", "changed_position": False, "change_reason": ""}}]}


def ask(script_file, *extra: str):
    r = run_council("ask", *FAST, "--script", script_file(SCRIPT), "--yes", "--personas", COUNCIL,
                    "--max-cycles", "2", *extra, PROBLEM)
    assert r.returncode == 0, r.stderr
    return r


def test_json_snapshot_carries_counterpoints_in_the_risks_the_hinges_and_the_debate(script_file):
    session = json.loads(ask(script_file, "--json").stdout)["session"]
    devil = next(x for x in session["responses"] if x["persona"] == DEVIL and x["cycle"] == 1)
    assert devil["risks"] == [COUNTERPOINT] and devil["note"] == "repaired after one retry"
    # seed 000: responses[].advice of the Devil's Advocate carries its counterpoints, in every cycle
    assert {tuple(x["advice"]) for x in session["responses"] if x["persona"] == DEVIL} == {
        (*FIRST["advice"], f"Counterpoint: {COUNTERPOINT}")}
    assert not any("Counterpoint" in " ".join(x["advice"]) for x in session["responses"] if x["persona"] != DEVIL)
    syn = session["synthesis"]
    assert COUNTERPOINT in syn["risksTradeoffs"]
    goal = session["assumptionLog"][0]  # --yes: every question skipped; the scripted chair hinges on the first
    assert [(h["assumptionId"], h["questionId"]) for h in syn["hinges"]] == [
        (goal["assumptionId"], goal["relatedQuestionId"])]
    assert syn["debate"]["verdict"] == "confirmed" and syn["debate"]["firstCounts"] == {"A": 2, "B": 1}


def test_printed_answer_says_what_it_hinges_on_and_what_the_debate_changed(script_file):
    out = ask(script_file).stdout
    assert "What the debate changed" in out and "The debate confirmed the first vote" in out
    hinges = out.split("What the answer hinges on", 1)[1].split("Where the council agrees", 1)[0]
    assert "If instead Cut costs, the council would lean to B · Wait. The chair: Wait until" in hinges
    risks = out.split("Risks and trade-offs", 1)[1].split("Next steps", 1)[0]
    assert COUNTERPOINT in risks


@pytest.mark.parametrize(("language", "advice", "risks", "label", "name"), [
    ("en", "**Advice**", "**Risks**", "Counterpoint", DEVIL),
    ("ru", "**Советы**", "**Риски**", "Контрдовод", "Адвокат дьявола")])  # issue 31: named in the session's language
def test_transcript_file_gives_the_devils_advocate_advice_with_its_counterpoints(script_file, tmp_path, language,
                                                                                 advice, risks, label, name):
    ask(script_file, "--transcript", str(tmp_path / "t"), "--language", language)
    [transcript] = (tmp_path / "t").glob("*.md")
    blocks = transcript.read_text(encoding="utf-8").split(f"#### {name}")[1:]
    assert len(blocks) == 2  # cycle 1 and cycle 2: its advice ends with its counterpoint, beside its risks
    for block in blocks:
        said = block.split(advice, 1)[1].split(risks, 1)[0]
        assert said.strip().endswith(f"- {label}: {COUNTERPOINT}"), said


AGREES = {"rules": [  # the Devil's Advocate recommends and votes A like everyone: a unanimous vote
    {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1},
     "reply": {**FIRST, "position": "Devil's Advocate prefers option A."}},
    {"when": {"schema": "PersonaReply", "purpose": DEVIL},
     "reply": {**FIRST, "option_id": "A", "changed_position": False, "change_reason": ""}}]}


def test_a_unanimous_vote_has_no_dissent_in_the_printed_answer_nor_the_json(script_file):
    """Issue 31: "Vote: unanimous for A" then "Dissent" quoting the Devil's Advocate, who voted A. Its
    counterpoints stay among the risks."""
    args = ("ask", *FAST, "--script", script_file(AGREES), "--yes", "--personas", COUNCIL, "--max-cycles", "2")
    out = run_council(*args, PROBLEM)
    assert out.returncode == 0, out.stderr
    assert "Vote: unanimous for A · Staged approach" in out.stdout and "Dissent" not in out.stdout
    assert COUNTERPOINT in out.stdout.split("Risks and trade-offs", 1)[1].split("Next steps", 1)[0]
    snapshot = run_council(*args, "--json", PROBLEM)
    syn = json.loads(snapshot.stdout)["session"]["synthesis"]
    assert syn["dissent"] == [] and COUNTERPOINT in syn["risksTradeoffs"]
