"""After the council answered, over real JSON-RPC: follow-up questions the moderator answers from the session
(streamed, recorded, restored), and ``/extend <text>`` re-opening the debate."""

from __future__ import annotations

import anyio
import pytest

from council.client.rpc import RpcError
from council.protocol import event_adapter

from .conftest import FLIP_FLOP_COUNCIL, PROBLEM, events_of, flip_flop_script, persona_reply, wait_for_event

WHY = "Why did the Devil's Advocate disagree?"
CLOSING = "`/extend <what to weigh>`"


async def completed(sc) -> str:
    r = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})
    assert r["status"] == "completed"
    return r["sessionId"]


def follow_up_markdown(sc, sid: str) -> str:
    return "".join(e["markdown"] for e in sc.session_events(sid) if e["type"].startswith("followUp."))


async def test_a_follow_up_is_streamed_recorded_and_survives_restore(sidecar):
    async with sidecar(script={"chunk": 8, "rules": []}) as old:
        sid = await completed(old)
        selected = len(events_of(old, sid, "personas.selected"))
        r = await old.call("council/turn", {"sessionId": sid, "text": WHY})
        assert r["intent"] == "follow_up" and r["sessionId"] == sid
        assert r["status"] == "completed" and r["awaiting"] == "nothing"
        deltas = events_of(old, sid, "followUp.delta")
        [answered] = events_of(old, sid, "followUp.answered")
        assert len(deltas) > 1 and deltas[0]["markdown"].startswith("#### Moderator\n\n")
        for e in [*deltas, answered]:
            event_adapter.validate_python(e)
        shown = follow_up_markdown(old, sid)
        assert f"On “{WHY}”" in shown and shown.rstrip().endswith("`/new <your question>`._")
        assert CLOSING in answered["markdown"] and shown.count("#### Moderator") == 1
        assert answered["followUp"]["question"] == WHY and answered["followUp"]["answer"] in shown
        assert len(events_of(old, sid, "personas.selected")) == selected  # no new council, no new session
        snap = await old.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        assert snap["session"]["status"] == "completed"
        assert [f["question"] for f in snap["session"]["followUps"]] == [WHY]
        assert "## Follow-up questions" in snap["transcriptMarkdown"] and WHY in snap["transcriptMarkdown"]
        assert any(rec["kind"] == "follow_up_answered" for rec in snap["journal"])
        assert snap["session"]["metadata"]["models"]["moderator"]["calls"] >= 2  # the options call and this one
        last_seq = max(e["seq"] for e in old.session_events(sid))
    async with sidecar() as new:
        restored = await new.call("council/restore", {"sessionId": sid, "journal": snap["journal"],
                                                      "lastSeq": last_seq})
        assert restored["status"] == "completed"
        again = await new.call("council/snapshot", {"sessionId": sid})
        assert again["session"]["followUps"] == snap["session"]["followUps"]
        assert again["transcriptMarkdown"] == snap["transcriptMarkdown"]
        r = await new.call("council/turn", {"sessionId": sid, "text": "And what would change their mind?"})
        assert r["intent"] == "follow_up"
        seqs = [e["seq"] for e in new.session_events(sid)]
        assert seqs == list(range(last_seq + 1, last_seq + 1 + len(seqs)))
        final = await new.call("council/snapshot", {"sessionId": sid})
        assert len(final["session"]["followUps"]) == 2


async def test_two_follow_ups_in_a_row_the_second_sees_the_first(sidecar):
    script = {"rules": [{"when": {"schema": "FollowUpReply", "contains": "Earlier follow-up questions"},
                         "reply": {"answer": "Building on the earlier answer: measure the first slice."}}]}
    async with sidecar(script=script) as sc:
        sid = await completed(sc)
        first = await sc.call("council/turn", {"sessionId": sid, "text": WHY})
        second = await sc.call("council/turn", {"sessionId": sid, "text": "What should we measure first?"})
        assert first["intent"] == second["intent"] == "follow_up"
        answers = [e["followUp"]["answer"] for e in events_of(sc, sid, "followUp.answered")]
        assert answers[0].startswith(f"On “{WHY}”")
        assert answers[1] == "Building on the earlier answer: measure the first slice."
        headings = [e for e in events_of(sc, sid, "followUp.delta") if "#### Moderator" in e["markdown"]]
        assert len(headings) == 2 and headings[0]["followUpId"] != headings[1]["followUpId"]
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert [f["answer"] for f in snap["session"]["followUps"]] == answers
        assert snap["session"]["status"] == "completed"


async def test_a_failed_follow_up_records_nothing_and_says_so(sidecar):
    script = {"rules": [{"when": {"schema": "FollowUpReply"}, "error": "client"}]}
    async with sidecar(script=script) as sc:
        sid = await completed(sc)
        r = await sc.call("council/turn", {"sessionId": sid, "text": WHY})
        assert r["intent"] == "follow_up" and r["status"] == "completed"
        assert "could not answer" in r["message"]
        assert events_of(sc, sid, "followUp.answered") == [] and events_of(sc, sid, "error")
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["followUps"] == []


async def test_cancelling_a_follow_up_keeps_the_session_completed(sidecar):
    script = {"rules": [{"when": {"schema": "FollowUpReply"}, "delay": 0.2}]}
    async with sidecar(script=script) as sc:
        sid = await completed(sc)
        box = {}

        async def ask():
            box["r"] = await sc.call("council/turn", {"sessionId": sid, "text": WHY})

        async with anyio.create_task_group() as tg:
            tg.start_soon(ask)
            await wait_for_event(sc, lambda e: e.get("sessionId") == sid and e["type"] == "progress"
                                 and "looks back" in e["message"])
            c = await sc.call("council/cancel", {"sessionId": sid})
            assert c["status"] == "completed"
        assert box["r"]["status"] == "completed" and "follow-up was stopped" in box["r"]["message"]
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["status"] == "completed" and snap["session"]["followUps"] == []
        with pytest.raises(RpcError):  # nothing runs now: cancelling a completed session is refused again
            await sc.call("council/cancel", {"sessionId": sid})


async def test_extend_with_text_reopens_the_debate_and_answers_again(sidecar):
    reconsidered = persona_reply(position="Reconsidered: the doubled budget changes my advice.", option_id="A",
                                 vote_confidence=0.9, continue_debate=False)
    script = {"rules": [{"when": {"schema": "PersonaReply", "cycle": 3, "contains": "budget just doubled"},
                         "reply": reconsidered}]}
    async with sidecar(script=script) as sc:
        sid = await completed(sc)
        before = await sc.call("council/snapshot", {"sessionId": sid})
        assert before["session"]["debateCycles"] == 2  # the council stopped by agreement
        r = await sc.call("council/turn", {"sessionId": sid, "command": "extend",
                                           "text": "Our budget just doubled; does that change the advice?"})
        assert r["intent"] == "extend_debate" and r["status"] == "completed"
        snap = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        s = snap["session"]
        assert s["debateCycles"] == 3 and s["reopenedCycleLimit"] == 5
        assert [i["text"] for i in s["userInputs"]] == ["Our budget just doubled; does that change the advice?"]
        third = [x for x in s["responses"] if x["cycle"] == 3]
        assert len(third) == len(s["participants"]) - 2  # every persona spoke, and every one saw the input
        assert all(x["position"] == reconsidered["position"] for x in third)
        assert {v["cycle"] for v in s["votes"]} >= {3} and s["tally"]["voters"] == len(third)
        assert len(events_of(sc, sid, "final.answer")) == 2 and len(events_of(sc, sid, "votes.tallied")) == 2
        [reopened] = events_of(sc, sid, "debate.reopened")
        assert reopened["limit"] == 10 and "budget just doubled" in reopened["markdown"]  # the session's cap
        statuses = [e["status"] for e in events_of(sc, sid, "status.changed")]
        assert statuses[-3:] == ["debating", "final", "completed"]
        assert "## You re-opened the debate" in snap["transcriptMarkdown"]
        assert snap["transcriptMarkdown"].index("## You re-opened") < snap["transcriptMarkdown"].index("Cycle 3")
        r = await sc.call("council/turn", {"sessionId": sid, "text": WHY})  # follow-ups work after it, too
        assert r["intent"] == "follow_up"


async def test_extend_with_text_after_the_cap_runs_more_cycles_and_plain_extend_still_works(sidecar):
    async with sidecar(script=flip_flop_script(), args=["--max-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False,
                                                                        "personas": FLIP_FLOP_COUNCIL}})
        sid = r["sessionId"]
        assert r["limitReached"] is True and r["canExtend"] is True
        r = await sc.call("council/turn", {"sessionId": sid, "command": "extend", "text": "Weigh the hiring freeze."})
        assert r["status"] == "completed" and r["limitReached"] is True and r["canExtend"] is True
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["debateCycles"] == 5  # three more cycles than the cap of 2, still no agreement
        assert snap["session"]["extendedDebateRequested"] is False
        r = await sc.call("council/turn", {"sessionId": sid, "command": "extend"})  # the Extend button
        assert r["status"] == "completed"
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert snap["session"]["debateCycles"] == 20 and snap["session"]["extendedDebateRequested"] is True
        assert len(events_of(sc, sid, "debate.limitReached")) == 3


async def test_extend_with_text_is_refused_while_clarifying(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        with pytest.raises(RpcError) as err:
            await sc.call("council/turn", {"sessionId": r["sessionId"], "command": "extend", "text": "more money"})
        assert err.value.data["code"] == "validation"
        r = await sc.call("council/turn", {"sessionId": r["sessionId"], "text": "skip all"})
        assert r["status"] == "completed"
