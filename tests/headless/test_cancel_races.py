"""A cancel that races a turn, and a new session in place of a stalled one (issue 30), over the real ``council serve``
with raw bytes: the turn and the cancel go in one write, so the sidecar reads both before either runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .raw import SERVE, RawSidecar, assert_error, notification, request

PROBLEM = "Should we split our monolith into services this quarter?"
OTHER = "Which message broker should our payments team adopt for the new ledger?"
QUICK = {"clarify": False, "maxCycles": 1}


def answers(sc: RawSidecar, *ids: str) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """The responses to ``ids`` (in whatever order they come) and the events that came meanwhile."""
    got: dict[str, dict[str, Any]] = {}
    events: list[dict[str, Any]] = []
    while set(ids) - set(got):
        message = sc.next(timeout=60)
        if "method" not in message:
            got[message["id"]] = message
        elif message.get("method") == "council/event":
            events.append(message["params"])
    return got, events


def completed_session(sc: RawSidecar) -> str:
    sc.send(request("first", "council/turn", {"text": PROBLEM, "options": QUICK}))
    result = sc.until("first", timeout=60)[0]["result"]
    assert result["status"] == "completed", result
    return result["sessionId"]


def test_cancel_racing_a_turn_on_a_completed_session_is_refused_unless_a_follow_up_runs() -> None:
    """Before: the turn had taken the session's lock but not yet set itself as the running turn, so council/cancel
    saw the turn that had completed the session as running, answered ``cancelledCalls: 0`` and cancelled nothing
    (a follow-up in that moment went on and was answered). Now a cancel on a completed session is refused unless the
    turn running is a follow-up, and then it stops that follow-up."""
    with RawSidecar() as sc:
        sc.initialize()
        sid = completed_session(sc)
        sc.send(request("retry", "council/turn", {"sessionId": sid, "command": "retry"}),
                request("cancel", "council/cancel", {"sessionId": sid}))
        got, _ = answers(sc, "retry", "cancel")
        data = assert_error(got["cancel"], -32602, "cancel")
        assert data["message"] == "the session is already completed", data
        assert_error(got["retry"], -32602, "retry")

        sc.send(request("follow", "council/turn", {"sessionId": sid, "text": "Why that option and not the others?"}),
                request("cancel2", "council/cancel", {"sessionId": sid}))
        got, events = answers(sc, "follow", "cancel2")
        assert got["cancel2"]["result"]["status"] == "completed", got["cancel2"]
        assert not [e for e in events if e["type"].startswith("followUp.")], events  # stopped before it answered
        assert got["follow"]["result"]["status"] == "completed", got["follow"]

        sc.send(request("cancel3", "council/cancel", {"sessionId": sid}))  # nothing runs: refused
        assert_error(sc.until("cancel3")[0], -32602, "cancel3")
        sc.send(request("bye", "shutdown"), notification("exit"))
        sc.until("bye")
        assert sc.exit_code() == 0


def test_a_text_turn_on_a_stalled_session_keeps_its_budget(tmp_path: Path) -> None:
    """Before: every advisor failed (the session stalled, waiting for Retry), the user typed a new question, and the
    new session had no ``maxModelCalls``: the budget was gone. Now it keeps the stalled session's budget; a turn that
    sets its own budget uses that one."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rules": [{"when": {"schema": "PersonaReply", "anywhere": "monolith"},
                                             "error": "server"}]}), encoding="utf-8")
    with RawSidecar(argv=[*SERVE, "--script", str(script)]) as sc:
        sc.initialize()
        for turn_id, own, kept in (("kept", {}, 20), ("own", {"maxModelCalls": 30}, 30)):
            sc.send(request(f"stall-{turn_id}", "council/turn", {"text": PROBLEM,
                                                                  "options": {**QUICK, "maxModelCalls": 20}}))
            stalled = sc.until(f"stall-{turn_id}", timeout=60)[0]
            sid = stalled.get("result", {}).get("sessionId") or stalled["error"]["data"]["details"]["sessionId"]
            assert snapshot(sc, sid)["status"] == "debating"  # every advisor failed: it waits for Retry

            sc.send(request(turn_id, "council/turn", {"sessionId": sid, "text": OTHER, "options": {**QUICK, **own}}))
            new = sc.until(turn_id, timeout=60)[0]["result"]
            assert new["intent"] == "new_problem" and new["sessionId"] != sid, new
            assert snapshot(sc, new["sessionId"])["settings"].get("maxModelCalls") == kept
        sc.send(request("bye", "shutdown"), notification("exit"))
        sc.until("bye")
        assert sc.exit_code() == 0


def snapshot(sc: RawSidecar, sid: str) -> dict[str, Any]:
    sc.send(request("snap", "council/snapshot", {"sessionId": sid}))
    return sc.until("snap")[0]["result"]["session"]
