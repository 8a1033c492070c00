"""Whole sessions driven over real JSON-RPC against the ``council serve`` subprocess."""

from __future__ import annotations

import anyio
import pytest

from council.client.rpc import RpcError
from council.protocol import event_adapter
from council.session.state.entities import ConversationSession
from council.session.state.records import journal_adapter
from council.session.state.reducer import replay

from .conftest import FLIP_FLOP_COUNCIL, PROBLEM, events_of, flip_flop_script, wait_for_event


async def test_full_session_answered(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        assert r["status"] == "clarifying" and r["awaiting"] == "answer"
        q1 = r["question"]
        assert q1["choices"] and q1["freeTextAllowed"] and q1["targetAmbiguity"] == "goal"
        r = await sc.call("council/answer", {"sessionId": sid, "questionId": q1["questionId"],
                                             "choice": q1["choices"][1]["value"], "idempotencyKey": "a1"})
        q2 = r["question"]
        assert q2["questionId"] != q1["questionId"] and q2["targetAmbiguity"] == "timeline"
        r = await sc.call("council/turn", {"sessionId": sid, "text": "By the end of next quarter"})
        assert r["status"] == "completed" and r["awaiting"] == "nothing"
        assert "## The council's answer" in r["finalAnswer"]
        events = sc.session_events(sid)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        for e in events:  # every event matches the documented contract
            event_adapter.validate_python(e)
        kinds = [e["type"] for e in events]
        for needed in ("personas.selected", "question.asked", "question.resolved", "persona.started",
                       "persona.delta", "persona.completed", "cycle.completed", "options.proposed",
                       "votes.tallied", "final.answer"):
            assert needed in kinds, needed
        assert kinds.index("final.answer") > kinds.index("votes.tallied") > kinds.index("cycle.completed")
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        session = ConversationSession.model_validate(snap["session"])
        answers = [q.user_answer.answer for q in session.questions if q.user_answer]
        assert answers == [q1["choices"][1]["value"], "By the end of next quarter"]
        assert session.assumption_log == []
        assert "## Cycle 1 · independent positions" in snap["transcriptMarkdown"]
        assert session.metadata.models["clarifier"].provider == "scripted"


async def test_stable_persona_order_while_running_concurrently(sidecar):
    # The first persona is the slowest: its text must still come first, and nobody's deltas interleave.
    script = {"rules": [{"when": {"schema": "PersonaReply", "cycle": 1}, "delay": 0.01}]}
    async with sidecar(script=script, args=["--max-cycles", "1", "--min-cycles", "1"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})
        sid = r["sessionId"]
        deltas = events_of(sc, sid, "persona.delta")
        completed = [e["persona"] for e in events_of(sc, sid, "persona.completed")]
        started = [e["persona"] for e in events_of(sc, sid, "persona.started")]
        assert completed == started
        order = []
        for d in deltas:
            if not order or order[-1] != d["persona"]:
                order.append(d["persona"])
        assert order == started  # each persona's stream is contiguous, in council order


async def test_skips_become_assumptions_in_final_answer(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        r = await sc.call("council/turn", {"sessionId": sid, "text": "skip"})
        assert r["status"] == "clarifying"
        r = await sc.call("council/turn", {"sessionId": sid, "command": "skip"})
        assert r["status"] == "completed"
        assumed = events_of(sc, sid, "assumption.recorded")
        assert len(assumed) == 2
        for a in assumed:
            assert a["assumption"]["assumption"] in r["finalAnswer"]
            assert a["assumption"]["rationale"]
        assert "Assumptions the council made" in r["finalAnswer"]
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        kinds = [t["messageType"] for t in snap["session"]["messageTurns"]]
        assert kinds.count("assumption_statement") == 2


async def test_skip_all_answers_nothing_and_debates(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        r = await sc.call("council/turn", {"sessionId": r["sessionId"], "text": "skip all"})
        assert r["status"] == "completed"
        assert len(events_of(sc, r["sessionId"], "assumption.recorded")) == 2


async def test_clear_request_asks_nothing(sidecar):
    script = {"rules": [{"when": {"schema": "ClarifierReply"},
                         "reply": {"needs_clarification": False, "reason": "clear", "questions": []}}]}
    async with sidecar(script=script) as sc:
        r = await sc.call("council/turn", {"text": "Rename the `utils` module to `text_utils` in our repo?"})
        assert r["status"] == "completed"
        assert events_of(sc, r["sessionId"], "question.asked") == []


async def test_more_questions_up_to_the_cap_then_refused(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        for expected_round in (2, 3):
            r = await sc.call("council/turn", {"sessionId": sid, "text": "more questions"})
            assert r["status"] == "clarifying"
            snap = await sc.call("council/snapshot", {"sessionId": sid})
            planned = {q["roundNumber"] for q in snap["session"]["questions"] + snap["session"]["plannedQuestions"]}
            assert max(planned) == expected_round
            assert snap["session"]["clarificationRounds"] == 0  # seed 002: completed rounds; round 1 is still open
        with pytest.raises(RpcError) as err:
            await sc.call("council/turn", {"sessionId": sid, "command": "more"})
        assert err.value.data["code"] == "validation"
        assert err.value.data["details"]["cap"] == 3
        # the session is intact and still answerable
        r = await sc.call("council/turn", {"sessionId": sid, "text": "skip all"})
        assert r["status"] == "completed"
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["clarificationRounds"] == 3


async def test_debate_cap_then_extended_debate(sidecar):
    async with sidecar(script=flip_flop_script(), args=["--max-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False,
                                                                        "personas": FLIP_FLOP_COUNCIL}})
        sid = r["sessionId"]
        assert r["status"] == "completed" and r["canExtend"] is True and r["limitReached"] is True
        limit = events_of(sc, sid, "debate.limitReached")
        assert len(limit) == 1 and limit[0]["cycles"] == 2 and limit[0]["canExtend"]
        assert len(events_of(sc, sid, "cycle.completed")) == 2
        r = await sc.call("council/turn", {"sessionId": sid, "text": "extend debate"})
        assert r["status"] == "completed"
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["debateCycles"] == 20  # the extended ceiling
        assert snap["session"]["extendedDebateRequested"] is True
        transcript = snap["transcriptMarkdown"]  # both caps, each after its own cycle
        assert transcript.count("The debate reached its limit of") == 2
        assert "## Cycle 2 · debate" in transcript and "## Cycle 20 · debate" in transcript
        assert len(events_of(sc, sid, "debate.limitReached")) == 2
        with pytest.raises(RpcError) as err:
            await sc.call("council/turn", {"sessionId": sid, "command": "extend"})
        assert err.value.data["code"] == "validation"


async def test_extended_debate_requested_upfront(sidecar):
    async with sidecar(script=flip_flop_script(), args=["--max-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {
            "clarify": False, "extendedDebate": True, "maxCycles": 2, "personas": FLIP_FLOP_COUNCIL}})
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        assert snap["session"]["debateCycles"] == 20


async def test_early_stop_when_two_thirds_want_to_stop(sidecar):
    async with sidecar() as sc:  # auto replies: continue in cycle 1, stop from cycle 2
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        assert snap["session"]["debateCycles"] == 2
        assert events_of(sc, r["sessionId"], "debate.limitReached") == []
        assert r["limitReached"] is False  # stopped by the council, not by the cap


async def test_cancel_mid_debate(sidecar):
    script = {"rules": [{"when": {"schema": "PersonaReply"}, "delay": 0.2}]}
    async with sidecar(script=script) as sc:
        result = {}

        async def run_turn():
            result["r"] = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})

        async with anyio.create_task_group() as tg:
            tg.start_soon(run_turn)
            started = await wait_for_event(sc, lambda e: e["type"] == "persona.started")
            sid = started["sessionId"]
            c = await sc.call("council/cancel", {"sessionId": sid})
            assert c["status"] == "cancelled" and c["cancelledCalls"] >= 1
        assert result["r"]["status"] == "cancelled"
        statuses = [e["status"] for e in events_of(sc, sid, "status.changed")]
        assert statuses[-1] == "cancelled"
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["status"] == "cancelled"
        assert snap["session"].get("finalAnswer") is None
        assert events_of(sc, sid, "persona.completed") == []
        with pytest.raises(RpcError):
            await sc.call("council/turn", {"sessionId": sid, "command": "retry"})


async def test_repeated_idempotency_key_is_a_no_op(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid, q1 = r["sessionId"], r["question"]
        params = {"sessionId": sid, "questionId": q1["questionId"], "action": "skip", "idempotencyKey": "click-1"}
        first, second = {}, {}

        async def click(box):
            box["r"] = await sc.call("council/answer", params)

        async with anyio.create_task_group() as tg:  # a double click: both in flight at once
            tg.start_soon(click, first)
            tg.start_soon(click, second)
        assert first["r"]["question"]["questionId"] == second["r"]["question"]["questionId"]
        assert {first["r"]["duplicate"], second["r"]["duplicate"]} == {False, True}
        third = await sc.call("council/answer", params)
        assert third["duplicate"] is True
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        statuses = [q["status"] for q in snap["session"]["questions"]]
        assert statuses == ["skipped", "pending"]  # one skip, not two
        assert len(snap["session"]["assumptionLog"]) == 1


async def test_two_concurrent_sessions_do_not_leak(sidecar):
    script = {"rules": [{"when": {"schema": "PersonaReply"}, "delay": 0.01}]}
    async with sidecar(script=script) as sc:
        results = {}

        async def run(name, text):
            r = await sc.call("council/turn", {"text": text})
            r = await sc.call("council/turn", {"sessionId": r["sessionId"], "text": f"answer from {name}"})
            r = await sc.call("council/turn", {"sessionId": r["sessionId"], "text": "skip"})
            results[name] = r

        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "alpha", "Should team alpha adopt Kotlin for the billing service?")
            tg.start_soon(run, "beta", "Should team beta move the data warehouse to Snowflake?")
        a, b = results["alpha"], results["beta"]
        assert a["sessionId"] != b["sessionId"]
        for name, r, other in (("alpha", a, "beta"), ("beta", b, "alpha")):
            snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
            s = snap["session"]
            assert s["status"] == "completed"
            assert f"team {name}" in s["requestText"]
            answers = [q["userAnswer"]["answer"] for q in s["questions"] if q["status"] == "answered"]
            assert answers == [f"answer from {name}"]
            assert f"answer from {other}" not in snap["transcriptMarkdown"]
            seqs = [e["seq"] for e in sc.session_events(r["sessionId"])]
            assert seqs == list(range(1, len(seqs) + 1))


async def test_replay_of_the_journal_equals_the_session(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        await sc.call("council/turn", {"sessionId": sid, "text": "Cut costs"})
        await sc.call("council/turn", {"sessionId": sid, "text": "skip"})
        snap = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        journal = journal_adapter.validate_python(snap["journal"])
        rebuilt = replay(journal)
        assert rebuilt == ConversationSession.model_validate(snap["session"])
