"""``council inbox DIR`` as a real subprocess: concurrent drops, malformed and duplicate files, model failures, the
single-watcher lock, and a kill -9 mid-review followed by a restart that loses nothing."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from inbox_helpers import SCRIPTED, drop, names, wait_for, watcher
from review_helpers import SEED_REQUEST, request, run_council, write_json

from council.review.models import ReviewedDecision


def decision(box: Path, request_id: str) -> ReviewedDecision:
    return ReviewedDecision.model_validate_json((box / "outbox" / f"{request_id}.decision.json").read_text())


def test_once_reviews_every_drop_concurrently_and_writes_whole_decisions(tmp_path):
    kinds = ["DECLARE_PASS", "FREEZE_SPEC", "UPDATE_CONFIG", "CODE_REFACTOR"]
    for i in range(8):
        drop(tmp_path, f"r{i}.json", request(request_id=f"req-{i}", change_type=kinds[i % 4]))
    (tmp_path / "inbox" / "notes.txt").write_text("not a request")
    r = run_council("inbox", str(tmp_path), "--once", *SCRIPTED, "--jobs", "4")
    assert r.returncode == 0, r.stderr
    assert names(tmp_path / "outbox") == sorted(f"req-{i}.decision.json" for i in range(8))
    for i in range(8):
        d = decision(tmp_path, f"req-{i}")
        assert d.final_outcome.value == "APPROVE" and d.audit.change_type.value == kinds[i % 4]
        assert d.audit.request_sha256 is not None
    assert names(tmp_path / "done") == sorted(f"r{i}.json" for i in range(8))
    assert names(tmp_path / "inbox") == ["notes.txt"]  # not *.json: left alone
    assert names(tmp_path / "processing") == names(tmp_path / "rejected") == names(tmp_path / "failed") == []
    assert "inbox: 8 decisions, 0 rejected, 0 failed, 0 recovered." in r.stderr


def test_malformed_requests_move_to_rejected_beside_their_error(tmp_path):
    drop(tmp_path, "broken.json", None, raw="{\"request_id\": ")
    drop(tmp_path, "enum.json", request(request_id="req-enum", change_type="SHIP_IT"))
    drop(tmp_path, "list.json", [SEED_REQUEST])
    drop(tmp_path, "good.json", SEED_REQUEST)
    r = run_council("inbox", str(tmp_path), "--once", *SCRIPTED)
    assert r.returncode == 0, r.stderr
    assert names(tmp_path / "rejected") == ["broken.error.json", "broken.json", "enum.error.json", "enum.json",
                                            "list.error.json", "list.json"]
    errors = {n: json.loads((tmp_path / "rejected" / f"{n}.error.json").read_text()) for n in ("broken", "enum",
                                                                                               "list")}
    assert all(set(e) == {"code", "message", "details", "request"} and e["code"] == "validation"
               for e in errors.values())
    assert errors["list"]["request"] == {"file": "list.json", "dropped_as": "list.json",
                                         "sha256": hashlib.sha256(json.dumps([SEED_REQUEST]).encode()).hexdigest()}
    assert errors["broken"]["details"]["reason"] == "not_json" and errors["broken"]["details"]["line"] == 1
    assert list(errors["enum"]["details"]["fields"]) == ["change_type"]
    assert (tmp_path / "rejected" / "enum.json").read_text() == json.dumps(request(request_id="req-enum",
                                                                                  change_type="SHIP_IT"))
    assert names(tmp_path / "outbox") == ["req_123456789.decision.json"]


def test_a_decided_request_id_is_never_reviewed_twice(tmp_path):
    drop(tmp_path, "first.json", SEED_REQUEST)
    assert run_council("inbox", str(tmp_path), "--once", *SCRIPTED).returncode == 0
    outbox = tmp_path / "outbox" / "req_123456789.decision.json"
    before = (outbox.read_bytes(), outbox.stat().st_mtime_ns)
    drop(tmp_path, "again.json", SEED_REQUEST)  # the very same bytes
    drop(tmp_path, "changed.json", request(proposer="SomeoneElse"))  # same id, other content
    drop(tmp_path, "twin-a.json", request(request_id="req-twin"))  # one id twice in one batch
    drop(tmp_path, "twin-b.json", request(request_id="req-twin", proposer="Twin"))
    r = run_council("inbox", str(tmp_path), "--once", *SCRIPTED)
    assert r.returncode == 0, r.stderr
    assert (outbox.read_bytes(), outbox.stat().st_mtime_ns) == before
    assert names(tmp_path / "outbox") == ["req-twin.decision.json", "req_123456789.decision.json"]
    rejected = {p.name: json.loads(p.read_text()) for p in (tmp_path / "rejected").glob("*.error.json")}
    assert set(rejected) >= {"again.error.json", "changed.error.json"} and len(rejected) == 3
    assert all(e["details"]["reason"] == "duplicate" for e in rejected.values())
    assert rejected["again.error.json"]["details"] == {"reason": "duplicate", "request_id": "req_123456789",
                                                      "decision": "outbox/req_123456789.decision.json"}
    assert len([n for n in names(tmp_path / "rejected") if n.startswith("twin-")]) == 2  # request + error


def test_a_request_that_cannot_be_reviewed_goes_to_failed_and_once_exits_3(tmp_path):
    script = write_json(tmp_path / "script.json", {"rules": [{"when": {"schema": "RoleReply"}, "error": "client"}]})
    drop(tmp_path / "box", "req.json", SEED_REQUEST)
    r = run_council("inbox", str(tmp_path / "box"), "--once", *SCRIPTED, "--script", str(script))
    assert r.returncode == 3
    box = tmp_path / "box"
    assert names(box / "failed") == ["req.error.json", "req.json"] and names(box / "outbox") == []
    error = json.loads((box / "failed" / "req.error.json").read_text())
    assert error["code"] == "internal" and error["details"]["reason"] == "roles_failed"


def test_kill_9_mid_review_loses_nothing_and_a_restart_finishes_it(tmp_path):
    slow = write_json(tmp_path / "slow.json", {"delay": 5.0})
    box = tmp_path / "box"
    proc = watcher(box, "--script", str(slow))
    try:
        wait_for(lambda: (box / "inbox").is_dir(), proc=proc)
        drop(box, "req.json", SEED_REQUEST)
        wait_for(lambda: names(box / "processing") == ["req.json"], proc=proc)
        time.sleep(0.3)  # the roles are mid-call
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert names(box / "processing") == ["req.json"] and names(box / "outbox") == []
    r = run_council("inbox", str(box), "--once", *SCRIPTED)  # the kernel released the dead watcher's lock
    assert r.returncode == 0, r.stderr
    assert decision(box, "req_123456789").final_outcome.value == "APPROVE"
    assert names(box / "processing") == [] and names(box / "done") == ["req.json"]


def test_a_crash_between_the_decision_and_the_archive_is_recovered_without_a_second_review(tmp_path):
    drop(tmp_path, "req.json", SEED_REQUEST)
    assert run_council("inbox", str(tmp_path), "--once", *SCRIPTED).returncode == 0
    os.rename(tmp_path / "done" / "req.json", tmp_path / "processing" / "req.json")  # as if it died right there
    before = (tmp_path / "outbox" / "req_123456789.decision.json").read_bytes()
    r = run_council("inbox", str(tmp_path), "--once", *SCRIPTED)
    assert r.returncode == 0, r.stderr
    assert "req.json: already decided before a restart" in r.stderr
    assert names(tmp_path / "done") == ["req.json"] and names(tmp_path / "rejected") == []
    assert (tmp_path / "outbox" / "req_123456789.decision.json").read_bytes() == before


def test_a_watcher_reviews_concurrent_drops_and_a_second_watcher_is_refused(tmp_path):
    proc = watcher(tmp_path, "--jobs", "3")
    try:
        wait_for(lambda: (tmp_path / ".inbox.lock").exists(), proc=proc)
        r = run_council("inbox", str(tmp_path), "--once", *SCRIPTED)
        assert r.returncode == 3 and "another `council inbox` is watching" in r.stderr
        threads = [threading.Thread(target=drop, args=(tmp_path, f"d{i}.json", request(request_id=f"c-{i}")))
                   for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wait_for(lambda: len(names(tmp_path / "done")) == 6, proc=proc)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert names(tmp_path / "outbox") == sorted(f"c-{i}.decision.json" for i in range(6))
    assert not [n for n in os.listdir(tmp_path / "outbox") if n.startswith(".")]  # no temp files left
    assert "inbox: 6 decisions" in proc.stderr.read()


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_bad_jobs_is_a_usage_error(tmp_path, jobs):
    r = run_council("inbox", str(tmp_path), "--once", *SCRIPTED, "--jobs", jobs)
    assert r.returncode == 2 and "--jobs" in r.stderr
