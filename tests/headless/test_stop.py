"""Stop pauses, ``retry`` resumes, only cancel cancels: over real JSON-RPC against the ``council serve`` subprocess."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from council.client.rpc import RpcError

from .conftest import FLIP_FLOP_COUNCIL, PROBLEM, events_of, flip_flop_script, wait_for_event

CYCLES = ["--max-cycles", "4"]  # the flip-flop council never settles: every run takes exactly 4 cycles
DEBATE = {"text": PROBLEM, "options": {"clarify": False, "personas": FLIP_FLOP_COUNCIL}}
STOPPED_AFTER_TWO = ("**Stopped.** 2 completed cycles kept — resume with `/retry` (or the Resume button); "
                     "`/cancel` ends the session.\n\n")


def slow_cycle(script: dict[str, Any], cycle: int, delay: float = 0.5) -> dict[str, Any]:
    """``script`` whose personas answer slowly in ``cycle`` the first time only (same replies)."""
    slow = [{**rule, "delay": delay, "times": 1} for rule in script["rules"]
            if rule["when"].get("cycle") == cycle]
    return {**script, "rules": slow + script["rules"]}


async def stop_during(sc, params: dict[str, Any], started, *, settle: float = 0.0) -> tuple[dict, dict, str]:
    """Run a turn, stop it once ``started(event)`` was seen; the turn's result, the stop's result, the session."""
    box: dict[str, Any] = {}

    async def turn() -> None:
        box["turn"] = await sc.call("council/turn", params)

    async with anyio.create_task_group() as tg:
        tg.start_soon(turn)
        event = await wait_for_event(sc, started)
        await anyio.sleep(settle)
        with anyio.fail_after(10):  # the stop returns once the turn has unwound
            box["stop"] = await sc.call("council/stop", {"sessionId": event["sessionId"]})
    return box["turn"], box["stop"], event["sessionId"]


def in_cycle(n: int, kind: str = "persona.delta"):
    return lambda e: e["type"] == kind and e.get("cycle") == n


async def test_stop_mid_debate_keeps_cycles_and_resume_finishes_like_an_unstopped_run(sidecar):
    async with sidecar(script=slow_cycle(flip_flop_script(), 3), args=CYCLES) as sc:
        turn, stop, sid = await stop_during(sc, DEBATE, in_cycle(3))
        assert stop == {"sessionId": sid, "status": "debating", "stopped": True, "cancelledCalls": 3}
        assert turn["status"] == "debating" and turn["stopped"] is True and "message" not in turn
        stopped = events_of(sc, sid, "session.stopped")
        assert len(stopped) == 1 and stopped[0]["markdown"] == STOPPED_AFTER_TWO
        assert stopped[0]["completedCycles"] == 2 and stopped[0]["status"] == "debating"
        assert [(e["cycle"], e["reason"]) for e in events_of(sc, sid, "cycle.dropped")] == [(3, "stopped")]
        assert "cancelled" not in [e["status"] for e in events_of(sc, sid, "status.changed")]
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert snap["stopped"] is True and snap["debateCycles"] == 2 and len(snap["discussions"]) == 2
        assert {x["cycle"] for x in snap["responses"]} == {1, 2} and {v["cycle"] for v in snap["votes"]} == {1, 2}

        done = await sc.call("council/turn", {"sessionId": sid, "command": "retry"})
        assert done["intent"] == "retry" and done["status"] == "completed" and done["stopped"] is False
        assert len(events_of(sc, sid, "session.resumed")) == 1
        resumed = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        plain = await sc.call("council/turn", DEBATE)  # the same question, never stopped
        unstopped = (await sc.call("council/snapshot", {"sessionId": plain["sessionId"]}))["session"]
        assert resumed["debateCycles"] == unstopped["debateCycles"] == 4
        assert resumed["tally"] == unstopped["tally"]
        assert [d["cycleNumber"] for d in resumed["discussions"]] == [1, 2, 3, 4]


@pytest.mark.parametrize("word", ["continue", "продолжай"])
async def test_stop_mid_debate_then_a_typed_resume_word_resumes_the_same_session(sidecar, word):
    async with sidecar(script=slow_cycle(flip_flop_script(), 2), args=CYCLES) as sc:
        _, stop, sid = await stop_during(sc, DEBATE, in_cycle(2))
        assert stop["stopped"] is True and stop["status"] == "debating"
        done = await sc.call("council/turn", {"sessionId": sid, "text": word})
        assert done["sessionId"] == sid and done["intent"] == "retry"
        assert done["status"] == "completed" and done["stopped"] is False
        assert len(events_of(sc, sid, "session.resumed")) == 1
        assert {e["sessionId"] for e in sc.events if e.get("sessionId")} == {sid}  # no other session was started
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert snap["requestText"] == PROBLEM and snap["debateCycles"] == 4


async def test_stop_while_the_first_question_is_prepared_then_resume(sidecar):
    script = {"rules": [{"when": {"schema": "ClarifierReply"}, "delay": 0.5, "times": 1}]}
    async with sidecar(script=script) as sc:
        reading = lambda e: e["type"] == "progress" and "reads your question" in e["message"]  # noqa: E731
        turn, stop, sid = await stop_during(sc, {"text": PROBLEM}, reading, settle=0.2)
        assert stop == {"sessionId": sid, "status": "created", "stopped": True, "cancelledCalls": 1}
        assert turn["status"] == "created" and turn["stopped"] is True and turn["awaiting"] == "nothing"
        (stopped,) = events_of(sc, sid, "session.stopped")
        assert stopped["markdown"].startswith("**Stopped.** Your answers so far are kept — resume with `/retry`")
        resumed = await sc.call("council/turn", {"sessionId": sid, "command": "retry"})
        assert resumed["status"] == "clarifying" and resumed["awaiting"] == "answer" and resumed["question"]
        assert resumed["stopped"] is False
        done = await sc.call("council/turn", {"sessionId": sid, "text": "skip all"})
        assert done["status"] == "completed"


async def test_stop_with_nothing_running_changes_nothing(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        before = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        seen = len(sc.session_events(sid))
        stop = await sc.call("council/stop", {"sessionId": sid})
        assert stop == {"sessionId": sid, "status": "clarifying", "stopped": False, "cancelledCalls": 0}
        typed = await sc.call("council/turn", {"sessionId": sid, "text": "stop"})
        assert typed["intent"] == "stop" and typed["status"] == "clarifying"
        assert "Nothing is running" in typed["message"]
        assert len(sc.session_events(sid)) == seen
        assert (await sc.call("council/snapshot", {"sessionId": sid}))["session"] == before
        again = await sc.call("council/turn", {"sessionId": sid, "command": "retry"})  # re-shows the question
        assert again["question"]["questionId"] == r["question"]["questionId"]
        assert [e["type"] for e in sc.session_events(sid)[seen:]] == ["question.asked"]


async def test_stop_then_cancel_ends_the_session_for_good(sidecar):
    async with sidecar(script=slow_cycle(flip_flop_script(), 2), args=CYCLES) as sc:
        _, stop, sid = await stop_during(sc, DEBATE, in_cycle(2))
        assert stop["stopped"] is True and stop["status"] == "debating"
        cancelled = await sc.call("council/cancel", {"sessionId": sid})
        assert cancelled["status"] == "cancelled"
        with pytest.raises(RpcError) as err:
            await sc.call("council/turn", {"sessionId": sid, "command": "retry"})
        assert err.value.data["code"] == "validation" and "cancelled" in err.value.data["message"]
        assert (await sc.call("council/stop", {"sessionId": sid}))["stopped"] is False


async def test_cancel_never_shows_the_open_question_again(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid, question = r["sessionId"], r["question"]["question"]
        seen = len(sc.session_events(sid))
        cancelled = await sc.call("council/turn", {"sessionId": sid, "text": "cancel"})
        assert cancelled["status"] == "cancelled" and cancelled["awaiting"] == "nothing"
        assert "question" not in cancelled and question not in (cancelled.get("message") or "")
        status = await sc.call("council/turn", {"sessionId": sid, "command": "status"})
        assert "question" not in status and question not in status["message"]
        after = sc.session_events(sid)[seen:]
        assert [e["type"] for e in after] == ["status.changed"]
        assert question not in "".join(e["markdown"] for e in after)


@pytest.mark.parametrize("order", ["cancelRequest first", "stop first"])
async def test_the_clients_cancel_request_and_stop_in_either_order_pause(sidecar, order):
    async with sidecar(script=slow_cycle(flip_flop_script(), 2), args=CYCLES) as sc:
        box: dict[str, Any] = {}
        with anyio.move_on_after(30):
            async with anyio.create_task_group() as tg:
                async def turn() -> None:
                    box["turn"] = await sc.call("council/turn", DEBATE)
                tg.start_soon(turn)
                sid = (await wait_for_event(sc, in_cycle(2)))["sessionId"]
                if order == "stop first":
                    box["stop"] = await sc.call("council/stop", {"sessionId": sid})
                tg.cancel_scope.cancel()  # our client sends $/cancelRequest for the pending turn
        if order == "cancelRequest first":
            box["stop"] = await sc.call("council/stop", {"sessionId": sid})
        assert box["stop"]["stopped"] is True and box["stop"]["status"] == "debating"
        assert "turn" not in box or box["turn"]["stopped"] is True  # the turn ended, not as cancelled
        taken = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        snap = taken["session"]
        assert snap["status"] == "debating" and snap["stopped"] is True and snap["debateCycles"] == 1
        assert len(events_of(sc, sid, "session.stopped")) == 1
        (why,) = [rec["reason"] for rec in taken["journal"] if rec["kind"] == "session_stopped"]
        assert why == ("the client cancelled the request" if order == "cancelRequest first" else "stopped by the user")
        done = await sc.call("council/turn", {"sessionId": sid, "command": "retry"})
        assert done["status"] == "completed"


async def test_a_stopped_session_restored_in_a_new_sidecar_resumes_and_finishes(sidecar):
    async with sidecar(script=slow_cycle(flip_flop_script(), 3), args=CYCLES) as old:
        _, stop, sid = await stop_during(old, DEBATE, in_cycle(3))
        assert stop["stopped"] is True
        snap = await old.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        last_seq = max(e["seq"] for e in old.session_events(sid))
    kinds = [rec["kind"] for rec in snap["journal"]]
    assert kinds[-2:] == ["cycle_dropped", "session_stopped"]
    async with sidecar(script=flip_flop_script(), args=CYCLES) as new:
        restored = await new.call("council/restore", {"sessionId": sid, "journal": snap["journal"],
                                                      "lastSeq": last_seq})
        assert restored["status"] == "debating" and restored["stopped"] is True
        assert restored["records"] == len(snap["journal"])  # nothing dropped: the stop closed the open cycle
        done = await new.call("council/turn", {"sessionId": sid, "command": "retry"})
        assert done["status"] == "completed" and done["stopped"] is False
        final = (await new.call("council/snapshot", {"sessionId": sid}))["session"]
        assert final["debateCycles"] == 4
        assert new.session_events(sid)[0]["seq"] == last_seq + 1
