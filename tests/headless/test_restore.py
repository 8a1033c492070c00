"""``council/restore``: a session survives a sidecar restart when the client hands its journal to the new one."""

from __future__ import annotations

import pytest

from council.client.rpc import RpcError

from .conftest import PROBLEM


async def test_restore_mid_clarification_then_finish_in_the_new_sidecar(sidecar):
    async with sidecar() as old:
        r = await old.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        snap = await old.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        last_seq = max(e["seq"] for e in old.session_events(sid))
    async with sidecar() as new:
        restored = await new.call("council/restore", {"sessionId": sid, "journal": snap["journal"],
                                                      "lastSeq": last_seq})
        assert restored["status"] == "clarifying" and restored["awaiting"] == "answer"
        assert restored["question"]["questionId"] == r["question"]["questionId"]
        done = await new.call("council/turn", {"sessionId": sid, "text": "skip all"})
        assert done["status"] == "completed" and "## The council's answer" in done["finalAnswer"]
        seqs = [e["seq"] for e in new.session_events(sid)]
        assert seqs[0] == last_seq + 1 and seqs == list(range(last_seq + 1, last_seq + 1 + len(seqs)))
        with pytest.raises(RpcError) as err:  # restoring a live session again is refused
            await new.call("council/restore", {"sessionId": sid, "journal": snap["journal"]})
        assert err.value.data["code"] == "validation"


async def test_an_interrupted_cycle_is_dropped_and_retry_runs_it(sidecar):
    async with sidecar() as old:
        done = await old.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})
        sid = done["sessionId"]
        snap = await old.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
    journal = snap["journal"]
    cut = next(i for i, rec in enumerate(journal) if rec["kind"] == "cycle_started")
    ends = next(i for i, rec in enumerate(journal) if rec["kind"] == "cycle_concluded")
    partial = journal[: (cut + ends) // 2 + 1]  # died in the middle of cycle 1
    async with sidecar() as new:
        restored = await new.call("council/restore", {"sessionId": sid, "journal": partial})
        assert restored["status"] == "debating" and restored["records"] == cut
        again = await new.call("council/turn", {"sessionId": sid, "text": "retry"})
        assert again["status"] == "completed"


@pytest.mark.parametrize("journal, field", [
    ([{"kind": "no_such_record", "at": "2026-01-01T00:00:00Z"}], "journal.0"),
    ([{"kind": "status_set", "at": "2026-01-01T00:00:00Z", "status": "debating"}], "journal"),
])
async def test_bad_journals_are_refused_with_fields(sidecar, journal, field):
    async with sidecar() as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/restore", {"sessionId": "s-restore-1", "journal": journal})
        data = err.value.data
        assert data["code"] == "validation" and any(k.startswith(field) for k in data["details"]["fields"])
        r = await sc.call("council/turn", {"text": PROBLEM})  # and the sidecar keeps serving
        assert r["sessionId"]
