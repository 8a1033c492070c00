"""Issue 20 over real JSON-RPC against ``council serve`` with scripted models: only questions whose answers change the
recommendation are asked (most decisive first, what hangs on each recorded on the question); none decisive, the
council says why in one line and debates at once; a skipped question is revisited after the answer with the
``revisit`` turn command; and a council of one answers without debating itself."""

from __future__ import annotations

import json

from .conftest import PROBLEM, events_of

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
CANDIDATES = ["Split now", "Extract one service first"]


def question(text: str, *favours: str) -> dict:
    return {"question": text, "target_ambiguity": "scope", "default_assumption": f"Assumed: {text}",
            "choices": [{"answer": f"Answer {i}", "favours": f} for i, f in enumerate(favours, 1)]}


def clarifier(*questions: dict) -> dict:
    return {"when": {"schema": "ClarifierReply"}, "reply": {
        "needs_clarification": True, "reason": "it depends", "candidates": CANDIDATES, "questions": list(questions)}}


SPLIT_A = question("How many teams own the monolith?", "A", "B", "B")
SPLIT_B = question("Is a launch due this quarter?", "A", "B")
SAME = question("Which language is it written in?", "A", "A")


async def test_only_questions_that_change_the_answer_are_asked_most_decisive_first(sidecar):
    async with sidecar(script={"rules": [clarifier(SPLIT_A, SAME, SPLIT_B)]}) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
        sid, q = r["sessionId"], r["question"]
        assert q["question"] == SPLIT_B["question"]  # every pair of its answers differs: asked first
        assert q["stakes"]["decisiveness"] == 1.0 and q["stakes"]["candidates"] == CANDIDATES
        assert [x["favours"] for x in q["stakes"]["leans"]] == CANDIDATES
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert [x["question"] for x in snap["plannedQuestions"]] == [SPLIT_A["question"]]
        assert [x["question"] for x in snap["unaskedQuestions"]] == [SAME["question"]]
        dropped = events_of(sc, sid, "questions.dropped")
        assert len(dropped) == 1 and dropped[0]["asked"] == 2 and SAME["question"] in dropped[0]["markdown"]


async def test_no_decisive_question_goes_straight_to_the_debate_with_one_line(sidecar):
    async with sidecar(script={"rules": [clarifier(SAME)]}) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
        sid = r["sessionId"]
        assert r["status"] == "completed" and r["awaiting"] == "nothing"
        assert events_of(sc, sid, "question.asked") == []
        (line,) = [e["markdown"] for e in events_of(sc, sid, "questions.dropped")]
        assert line.startswith("_No clarifying questions:") and line.strip().count("\n") == 0
        assert "“Split now”" in line and "straight to the debate" in line


async def test_revisit_a_skipped_question_after_the_answer(sidecar):
    async with sidecar(args=["--max-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
        sid = r["sessionId"]
        r = await sc.call("council/turn", {"sessionId": sid, "command": "skipAll"})
        assert r["status"] == "completed"
        before = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        skipped = before["questions"][1]
        r = await sc.call("council/turn", {"sessionId": sid, "command": "revisit",
                                           "questionId": skipped["questionId"]})
        assert r["intent"] == "revisit" and r["status"] == "clarifying"
        assert r["question"]["questionId"] == skipped["questionId"]
        assert events_of(sc, sid, "question.asked")[-1]["revisit"]
        r = await sc.call("council/answer", {"sessionId": sid, "questionId": skipped["questionId"],
                                             "choice": r["question"]["choices"][1]["value"], "idempotencyKey": "v1"})
        assert r["status"] == "completed" and r["finalAnswer"].startswith("## The council's answer\n\n**Revisited:**")
        after = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert after["debateCycles"] == before["debateCycles"] + 1  # one vote round, not the debate again
        assert [a["relatedQuestionId"] for a in after["assumptionLog"]] == [before["questions"][0]["questionId"]]
        assert after["revisits"][0]["settled"] and after["revisits"][0]["answer"] == "This year"
        assert after["clarificationRounds"] == 1


async def test_a_council_of_one_does_not_debate_itself(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": ["Security Expert"],
                                                                        "clarify": False}})
        sid = r["sessionId"]
        assert r["status"] == "completed"
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert snap["debateCycles"] == 0 and snap["discussions"] == [] and snap["votes"] == []
        assert not events_of(sc, sid, "cycle.started") and not events_of(sc, sid, "vote.cast")


async def test_a_hostile_plan_over_json_rpc_is_repaired_once_and_its_buttons_are_kept_once(sidecar, tmp_path):
    """What a weak model writes, met over real JSON-RPC: a plan whose assumption is blank (it failed the session
    with an internal error when the question was skipped) is repaired once; the repaired plan's choice written twice
    ("Yes", "yes.") is one button with its first lean, and the skipped question's default is the assumption."""
    blank = {**SPLIT_B, "default_assumption": " " * 12}
    twice = {**SPLIT_B, "choices": [{"answer": "Yes", "favours": "A"}, {"answer": "yes.", "favours": "B"},
                                    {"answer": "No", "favours": "option b"}]}
    trace = tmp_path / "trace.jsonl"
    async with sidecar(script={"trace": str(trace), "rules": [{**clarifier(blank), "times": 1},
                                                              clarifier(twice)]}) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
        sid, q = r["sessionId"], r["question"]
        assert [c["value"] for c in q["choices"]] == ["Yes", "No"]
        assert [x["favours"] for x in q["stakes"]["leans"]] == CANDIDATES
        r = await sc.call("council/turn", {"sessionId": sid, "command": "skip"})
        assert r["status"] == "completed"
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert [a["assumption"] for a in snap["assumptionLog"]] == [SPLIT_B["default_assumption"]]
    calls = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert sum(1 for c in calls if c["event"] == "start" and c["purpose"] == "clarifier") == 2
