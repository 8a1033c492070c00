"""What a chat turn means, end to end over real JSON-RPC: ``/answer``, keywords while a question is open, a new
problem typed instead of an answer (``question.confirmNew``), naming a persona in a new problem, and bare keywords
after an answer (a ``hint``, never a new session; "continue" extends a debate that stopped at its cycle limit)."""

from __future__ import annotations

import pytest

from council.client.rpc import RpcError
from council.protocol import event_adapter

from .conftest import FLIP_FLOP_COUNCIL, PROBLEM, events_of, flip_flop_script

KAFKA = "Should we use Kafka or RabbitMQ for our event bus?"


async def answers_of(sc, sid: str) -> list[str]:
    snap = await sc.call("council/snapshot", {"sessionId": sid})
    return [q["userAnswer"]["answer"] for q in snap["session"]["questions"] if q["status"] == "answered"]


async def test_answer_command_records_the_text_whatever_it_says(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid, q1 = r["sessionId"], r["question"]
        r = await sc.call("council/turn", {"sessionId": sid, "command": "answer", "text": "extend"})
        assert r["intent"] == "answer" and r["status"] == "clarifying"
        assert r["question"]["questionId"] != q1["questionId"]
        r = await sc.call("council/turn", {"sessionId": sid, "command": "answer", "text": "skip the migration"})
        assert r["status"] == "completed"
        assert await answers_of(sc, sid) == ["extend", "skip the migration"]
        assert events_of(sc, sid, "assumption.recorded") == []


async def test_answer_command_without_an_open_question_is_refused(sidecar):
    async with sidecar() as sc:
        with pytest.raises(RpcError) as err:  # no session at all
            await sc.call("council/turn", {"command": "answer", "text": "This quarter"})
        assert err.value.data["code"] == "validation"
        assert err.value.data["details"]["reason"] == "no_open_question"
        done = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})
        sid = done["sessionId"]
        before = len(sc.session_events(sid))
        with pytest.raises(RpcError) as err:  # a completed session
            await sc.call("council/turn", {"sessionId": sid, "command": "answer", "text": "This quarter"})
        assert err.value.data["code"] == "validation"
        assert err.value.data["details"]["reason"] == "no_open_question"
        assert len(sc.session_events(sid)) == before  # nothing happened to the session
        status = await sc.call("council/turn", {"sessionId": sid, "text": "status"})  # and the sidecar serves
        assert status["intent"] == "status" and status["status"] == "completed"


@pytest.mark.parametrize("typed", ["extend", "retry", "try again"])
async def test_other_keywords_typed_while_a_question_is_open_are_answers(sidecar, typed):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        r = await sc.call("council/turn", {"sessionId": sid, "text": typed})
        assert r["intent"] == "answer" and r["status"] == "clarifying" and r["awaiting"] == "answer"
        assert await answers_of(sc, sid) == [typed]
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["debateCycles"] == 0 and snap["session"]["extendedDebateRequested"] is False
        r = await sc.call("council/turn", {"sessionId": sid, "text": "skip"})  # a question keyword still acts
        assert r["intent"] == "skip" and r["status"] == "completed"


async def test_a_new_problem_typed_while_clarifying_is_confirmed_then_answered(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid, q1 = r["sessionId"], r["question"]
        journal_before = (await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True}))["journal"]
        r = await sc.call("council/turn", {"sessionId": sid, "text": KAFKA})
        assert r["intent"] == "confirm_new" and r["awaiting"] == "answer" and r["status"] == "clarifying"
        assert r["question"]["questionId"] == q1["questionId"] and r["question"]["status"] == "pending"
        [ask] = events_of(sc, sid, "question.confirmNew")
        event_adapter.validate_python(ask)
        assert ask["questionId"] == q1["questionId"] and ask["text"] == KAFKA
        assert "That reads like a new question" in ask["markdown"] and q1["question"] in ask["markdown"]
        snap = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        assert snap["journal"] == journal_before  # nothing was recorded
        r = await sc.call("council/turn", {"sessionId": sid, "command": "answer", "text": KAFKA})
        assert r["intent"] == "answer" and r["question"]["questionId"] != q1["questionId"]
        assert await answers_of(sc, sid) == [KAFKA]


async def test_a_new_problem_typed_while_clarifying_is_confirmed_then_started(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        r = await sc.call("council/turn", {"sessionId": sid, "text": KAFKA})
        assert r["intent"] == "confirm_new"
        new = await sc.call("council/turn", {"sessionId": sid, "command": "new", "text": KAFKA})
        assert new["intent"] == "new_problem" and new["sessionId"] != sid
        snap = await sc.call("council/snapshot", {"sessionId": new["sessionId"]})
        assert snap["session"]["requestText"] == KAFKA
        old = await sc.call("council/snapshot", {"sessionId": sid})
        assert old["session"]["status"] == "clarifying" and await answers_of(sc, sid) == []


async def test_naming_a_persona_in_a_new_problem_keeps_the_full_council(sidecar):
    async with sidecar() as sc:
        text = "Why did the Devil's Advocate disagree about splitting our billing monolith into services?"
        r = await sc.call("council/turn", {"text": text, "options": {"clarify": False}})
        [selected] = events_of(sc, r["sessionId"], "personas.selected")
        names = [p["name"] for p in selected["selection"]["selectedPersonas"]]
        assert "Devil's Advocate" in names and len(names) >= 3
        assert selected["selection"]["overriddenPersonas"] == ["Devil's Advocate"]
        assert "as you asked" in selected["markdown"]
        assert {e["persona"] for e in events_of(sc, r["sessionId"], "persona.completed")} == set(names)


async def test_after_an_answer_bare_keywords_start_nothing(sidecar):
    async with sidecar() as sc:
        done = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})
        sid = done["sessionId"]
        assert done["status"] == "completed" and not done.get("canExtend")
        before = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        seen = len(sc.events)
        for word in ["retry", "try again", "more", "continue", "cancel", "stop", "skip", "later", "I don't know"]:
            r = await sc.call("council/turn", {"sessionId": sid, "text": word})
            assert r["sessionId"] == sid and r["intent"] == "hint" and r["status"] == "completed", word
            assert r["message"].startswith(f"The council has already answered, so “{word}” has nothing")
            assert "`/new <question>`" in r["message"]
            assert "/extend" not in r["message"]  # this debate agreed: there is nothing to extend
        assert sc.events[seen:] == []  # nothing ran: no event, no model call, no other session
        assert await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True}) == before


async def test_continue_after_a_debate_that_hit_its_cycle_limit_extends_it(sidecar):
    debate = {"text": PROBLEM, "options": {"clarify": False, "personas": FLIP_FLOP_COUNCIL}}
    async with sidecar(script=flip_flop_script(), args=["--max-cycles", "2"]) as sc:
        done = await sc.call("council/turn", debate)
        sid = done["sessionId"]
        assert done["status"] == "completed" and done["canExtend"] is True
        again = await sc.call("council/turn", {"sessionId": sid, "text": "retry"})
        assert again["intent"] == "hint" and "`/extend`" in again["message"]
        more = await sc.call("council/turn", {"sessionId": sid, "text": "continue"})
        assert more["sessionId"] == sid and more["intent"] == "extend_debate" and more["status"] == "completed"
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert snap["extendedDebateRequested"] is True and snap["debateCycles"] > 2


async def test_after_a_cancel_a_bare_keyword_starts_nothing(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        await sc.call("council/turn", {"sessionId": sid, "text": "cancel"})
        seen = len(sc.events)
        for word in ["retry", "continue", "cancel"]:
            r = await sc.call("council/turn", {"sessionId": sid, "text": word})
            assert r["sessionId"] == sid and r["intent"] == "hint" and r["status"] == "cancelled"
            assert r["message"].startswith("This session was cancelled")
        assert sc.events[seen:] == []
        new = await sc.call("council/turn", {"sessionId": sid, "text": KAFKA})
        assert new["intent"] == "new_problem" and new["sessionId"] != sid


async def test_cancel_says_it_once(sidecar):
    """Issue 21: `/cancel` printed "The session was cancelled." twice (its status event and the turn's message)."""
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        seen = len(sc.session_events(sid))
        r = await sc.call("council/turn", {"sessionId": sid, "command": "cancel", "text": ""})
        assert r["intent"] == "cancel" and r["status"] == "cancelled"
        shown = "".join(e["markdown"] for e in sc.session_events(sid)[seen:]) + (r.get("message") or "")
        assert shown.count("The session was cancelled.") == 1, shown
