"""Issue 18, the review inbox's faults, each through a real ``council inbox`` subprocess: nothing is overwritten and
every error document is paired with its file; every malformed request is rejected with its reason (never left in
processing/); the size limit holds before a byte is read; a FIFO, folder or link never blocks the watcher (SIGTERM
still stops it); the temp files a killed writer left are cleaned at start; a crash between an error document and its
request's move is finished at the next start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from inbox_helpers import SCRIPTED, drop, names, set_aside, wait_for, watcher
from review_helpers import COUNCIL, SEED_REQUEST, request, run_council, write_json


def once(box: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return run_council("inbox", str(box), "--once", *SCRIPTED, *args, timeout=timeout)


def test_a_dropped_x_error_json_and_a_later_x_json_keep_both_files_and_both_documents(tmp_path):
    drop(tmp_path, "x.error.json", None, raw="{not json")  # rejected first: it is a request like any other
    assert once(tmp_path).returncode == 0
    drop(tmp_path, "x.json", None, raw="[1, 2")
    assert once(tmp_path).returncode == 0
    drop(tmp_path, "x.json", None, raw="{also not json")  # the same name again
    assert once(tmp_path).returncode == 0
    docs = set_aside(tmp_path / "rejected")
    assert len(docs) == 3
    bodies = {(tmp_path / "rejected" / n).read_text(): d for n, d in docs.items()}
    assert set(bodies) == {"{not json", "[1, 2", "{also not json"}  # every file kept, byte for byte
    assert bodies["{not json"]["request"]["dropped_as"] == "x.error.json"
    assert [d["request"]["dropped_as"] for t, d in bodies.items() if t != "{not json"] == ["x.json", "x.json"]
    assert all(d["details"]["reason"] == "not_json" for d in docs.values())
    assert bodies["{not json"]["request"]["file"] == "x.error.json"


def test_failed_requests_named_x_error_json_then_x_json_twice_keep_every_file_and_reason(tmp_path):
    script = write_json(tmp_path / "script.json", {"rules": [{"when": {"schema": "RoleReply"}, "error": "client"}]})
    box = tmp_path / "box"
    for i, name in enumerate(["x.error.json", "x.json", "x.json"]):
        drop(box, name, request(request_id=f"req-{i}"))
        assert once(box, "--script", str(script)).returncode == 3
    docs = set_aside(box / "failed")
    ids = {json.loads((box / "failed" / n).read_text())["request_id"]: d["request"]["dropped_as"]
           for n, d in docs.items()}
    assert ids == {"req-0": "x.error.json", "req-1": "x.json", "req-2": "x.json"}
    assert all(d["details"]["reason"] == "roles_failed" for d in docs.values())


def test_a_decision_file_already_in_outbox_is_never_overwritten(tmp_path):
    (tmp_path / "outbox").mkdir(parents=True)
    mine = tmp_path / "outbox" / "req_123456789.decision.json"
    mine.write_text("{\"placed\": \"by hand\"}")
    drop(tmp_path, "req.json", SEED_REQUEST)
    assert once(tmp_path).returncode == 0
    assert mine.read_text() == "{\"placed\": \"by hand\"}"
    assert set_aside(tmp_path / "rejected")["req.json"]["details"]["reason"] == "duplicate"


HUGE_INT = "7" * 5000
DEEP = "[" * 100_000 + "]" * 100_000
NESTED_500 = json.loads("[" * 500 + "]" * 500)


@pytest.mark.parametrize(("name", "raw", "reason"), [
    ("deep.json", DEEP, "too_deep"),  # RecursionError in json
    ("deep-context.json", json.dumps(request(context={**SEED_REQUEST["context"], "x": NESTED_500})),
     "too_deep"),  # parses, but deeper than any request needs
    ("huge-int.json", f'{{"request_id": {HUGE_INT}}}', "not_json"),  # ValueError: more digits than int() converts
    ("huge-metric.json", json.dumps(request()).replace("15.4", "1" + "0" * 400), None),  # a float field too big
    ("surrogate.json", json.dumps(request(proposer="\ud800")), "lone_surrogate"),  # "\ud800": JSON, not text
    ("nan.json", json.dumps(request()).replace("15.4", "NaN"), "not_json"),
    ("latin1.json", json.dumps(request(proposer="é"), ensure_ascii=False).encode("latin-1"), "not_utf8"),
    ("string.json", json.dumps("a request?"), None),
])
def test_every_malformed_request_is_rejected_with_its_reason_and_once_exits_0(tmp_path, name, raw, reason):
    drop(tmp_path, name, None, raw=raw)
    drop(tmp_path, "good.json", SEED_REQUEST)
    r = once(tmp_path)
    assert r.returncode == 0, r.stderr
    assert names(tmp_path / "processing") == [] and names(tmp_path / "done") == ["good.json"]
    document = set_aside(tmp_path / "rejected")[name]
    assert document["code"] == "validation"
    assert document["details"].get("reason") == reason or (reason is None and "fields" in document["details"])
    assert "internal error" not in r.stderr


def peak_rss_mib(*args: str) -> tuple[int, subprocess.CompletedProcess[str]]:
    """Run ``council ARGS`` and measure its peak RSS from a parent that has no other child."""
    probe = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "print(r.stdout, end=''); print(r.stderr, end='', file=sys.stderr); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", probe, *COUNCIL, *args], capture_output=True, text=True, timeout=120)
    *stderr, last = out.stderr.rstrip("\n").split("\n")
    peak_kib, code = map(int, last.split())
    return peak_kib // 1024, subprocess.CompletedProcess(args, code, out.stdout, "\n".join(stderr))


def sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)  # no disk used, but a reader of the whole file would hold it all in memory
    return path


def test_a_huge_sparse_file_is_refused_by_its_size_before_it_is_read(tmp_path):
    (tmp_path / "inbox").mkdir()
    os.rename(sparse(tmp_path / ".big.part", 600 * 1024 * 1024), tmp_path / "inbox" / "big.json")
    peak, r = peak_rss_mib("inbox", str(tmp_path), "--once", *SCRIPTED)
    assert r.returncode == 0, r.stderr
    assert peak < 400, f"the watcher peaked at {peak} MB"
    document = set_aside(tmp_path / "rejected")["big.json"]
    assert document["details"] == {"reason": "too_large", "limit": 20 * 1024 * 1024, "size": 600 * 1024 * 1024}


def test_review_file_refuses_a_huge_file_by_its_size(tmp_path):
    peak, r = peak_rss_mib("review", str(sparse(tmp_path / "big.json", 600 * 1024 * 1024)), "--json", *SCRIPTED)
    assert r.returncode == 3
    assert json.loads(r.stdout)["error"]["details"]["reason"] == "too_large"
    assert peak < 400, f"council review peaked at {peak} MB"


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink", "symlink to a fifo"])
def test_entries_that_are_not_regular_files_are_rejected_without_blocking(tmp_path, kind):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    entry = inbox / "odd.json"
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "directory":
        entry.mkdir()
    elif kind == "symlink":
        (tmp_path / "real.json").write_text(json.dumps(SEED_REQUEST))
        entry.symlink_to(tmp_path / "real.json")
    else:
        os.mkfifo(tmp_path / "pipe")
        entry.symlink_to(tmp_path / "pipe")
    r = once(tmp_path, timeout=30)
    assert r.returncode == 0, r.stderr
    document = set_aside(tmp_path / "rejected")["odd.json"]
    assert document["details"]["reason"] == "not_regular"
    assert document["details"]["kind"] == ("symlink" if "symlink" in kind else kind)
    assert names(tmp_path / "outbox") == [] and names(tmp_path / "processing") == []


def test_a_fifo_left_in_processing_neither_blocks_the_watcher_nor_its_sigterm(tmp_path):
    (tmp_path / "processing").mkdir()
    os.mkfifo(tmp_path / "processing" / "stuck.json")  # as if it became a FIFO after its claim
    proc = watcher(tmp_path)
    try:
        wait_for(lambda: "stuck.json" in names(tmp_path / "rejected"), timeout=20, proc=proc)
        drop(tmp_path, "req.json", SEED_REQUEST)
        wait_for(lambda: names(tmp_path / "done") == ["req.json"], timeout=20, proc=proc)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - started < 5
    finally:
        if proc.poll() is None:
            proc.kill()
    assert set_aside(tmp_path / "rejected")["stuck.json"]["details"]["kind"] == "fifo"


def test_temp_files_a_killed_writer_left_are_removed_at_start_and_nothing_else(tmp_path):
    for folder in ("outbox", "rejected", "failed", "done", "processing"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / ".council-tmp-4242-7").write_text("{\"half\": ")
        (tmp_path / folder / ".keep").write_text("")
    (tmp_path / "inbox").mkdir()
    (tmp_path / "inbox" / ".council-tmp-4242-7").write_text("an agent's, not ours to touch")
    assert once(tmp_path).returncode == 0
    for folder in ("outbox", "rejected", "failed", "done", "processing"):
        assert names(tmp_path / folder) == [".keep"]
    assert names(tmp_path / "inbox") == [".council-tmp-4242-7"]


def test_a_crash_between_the_error_document_and_the_move_joins_them_without_a_second_review(tmp_path):
    script = write_json(tmp_path / "script.json", {"rules": [{"when": {"schema": "RoleReply"}, "error": "client"}]})
    box = tmp_path / "box"
    drop(box, "req.json", SEED_REQUEST)
    assert once(box, "--script", str(script)).returncode == 3
    os.rename(box / "failed" / "req.json", box / "processing" / "req.json")  # died right after the document
    r = once(box)  # the model works now: were it reviewed again, it would be decided
    assert r.returncode == 3, r.stderr  # it did end in failed/
    assert "req.json: failed → failed/req.json (set aside before a restart" in r.stderr
    assert sorted(set_aside(box / "failed")) == ["req.json"]
    assert names(box / "outbox") == [] and names(box / "done") == [] and names(box / "processing") == []


def test_a_long_name_is_shortened_for_its_error_document_and_keeps_its_original_name_on_record(tmp_path):
    name = "r" * 250 + ".json"  # 255 bytes: the document's name would not fit
    drop(tmp_path, name, None, raw="nope")
    assert once(tmp_path).returncode == 0
    docs = set_aside(tmp_path / "rejected")
    (document,) = docs.values()
    assert document["request"]["dropped_as"] == name
    assert all(len(n.encode()) <= 255 for n in names(tmp_path / "rejected"))


def test_a_file_name_that_is_not_utf8_is_rejected_and_named_readably(tmp_path):
    (tmp_path / "inbox").mkdir()
    raw_name = b"caf\xe9.json"
    with open(os.path.join(os.fsencode(tmp_path / "inbox"), raw_name), "wb") as f:
        f.write(b"{}")
    r = once(tmp_path)
    assert r.returncode == 0, r.stderr
    rejected = os.listdir(os.fsencode(tmp_path / "rejected"))
    assert sorted(rejected) == [b"caf\xe9.error.json", raw_name]
    document = json.loads((tmp_path / "rejected" / os.fsdecode(b"caf\xe9.error.json")).read_text())
    assert document["request"]["dropped_as"] == "caf\ufffd.json"


def test_a_drop_whose_mtime_lies_in_the_future_is_still_claimed(tmp_path):
    path = drop(tmp_path, "req.json", SEED_REQUEST)
    tomorrow = time.time() + 86_400
    os.utime(path, (tomorrow, tomorrow))  # a skewed clock, or `cp -p` of such a file, then a rename
    assert once(tmp_path).returncode == 0
    proc = watcher(tmp_path)  # a watcher claims it once it has seen it unchanged for --settle
    try:
        wait_for(lambda: (tmp_path / ".inbox.lock").exists(), proc=proc)
        later = drop(tmp_path, "later.json", request(request_id="req-later"))
        os.utime(later, (tomorrow, tomorrow))
        wait_for(lambda: names(tmp_path / "done") == ["later.json", "req.json"], timeout=20, proc=proc)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert names(tmp_path / "outbox") == ["req-later.decision.json", "req_123456789.decision.json"]


def test_a_folder_deleted_under_a_running_watcher_comes_back(tmp_path):
    proc = watcher(tmp_path)
    try:
        wait_for(lambda: (tmp_path / ".inbox.lock").exists(), proc=proc)
        wait_for(lambda: (tmp_path / "processing").is_dir(), proc=proc)
        os.rmdir(tmp_path / "processing")
        os.rmdir(tmp_path / "inbox")
        time.sleep(0.3)
        drop(tmp_path, "req.json", SEED_REQUEST)
        wait_for(lambda: names(tmp_path / "done") == ["req.json"], timeout=20, proc=proc)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_drop_named_like_a_request_left_in_processing_is_handled_in_the_same_once_run(tmp_path):
    """Audit G2: after a kill -9, ``processing/a.json`` (left to recover) and a new ``inbox/a.json`` — ``--once`` used
    to exit 0 with the drop still in inbox/. The claim now takes a free name; both are handled in one run."""
    assert once(tmp_path, "-q").returncode == 0  # the folders
    write_json(tmp_path / "processing" / "a.json", SEED_REQUEST)
    (tmp_path / "inbox" / "a.json").write_text("{bad")
    result = once(tmp_path)
    assert result.returncode == 0, result.stderr
    assert names(tmp_path / "inbox") == [] and names(tmp_path / "processing") == []
    assert names(tmp_path / "outbox") == [f"{SEED_REQUEST['request_id']}.decision.json"]
    assert names(tmp_path / "done") == ["a.json"]
    docs = set_aside(tmp_path / "rejected")
    assert [d["request"]["dropped_as"] for d in docs.values()] == ["a.json"]
    assert [d["details"]["reason"] for d in docs.values()] == ["not_json"]
    assert (tmp_path / "rejected" / next(iter(docs))).read_text() == "{bad"


def test_once_does_not_exit_0_while_a_drop_it_saw_could_not_be_claimed(tmp_path, monkeypatch):
    """A claim that fails (here EACCES from a fault double) leaves the drop in inbox/: ``--once`` says so (3)."""
    import errno

    import council.review.inbox as inbox
    from council.cli.main import main

    drop(tmp_path, "a.json", None, raw="{bad")
    real = inbox.move_new

    def move_new(src, dst):
        if Path(src).parent.name == "inbox":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(src))
        return real(src, dst)

    monkeypatch.setattr(inbox, "move_new", move_new)
    assert main(["inbox", str(tmp_path), "--once", *SCRIPTED, "-q"]) == 3
    assert names(tmp_path / "inbox") == ["a.json"]
