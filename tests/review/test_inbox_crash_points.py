"""A crash at every step of ``council inbox`` (issue 18): a watcher process (forked) is made to die with ``os._exit`` —
as abruptly as kill -9, no ``finally`` runs — just before its n-th rename (every claim, every decision and error
document leaving its temp file, every move to done/, rejected/ or failed/), for n = 1, 2, … until a run gets through.
After each crash a clean ``--once`` must finish the job: every drop accounted for exactly once, each decision written
once for its exact bytes, each error document beside its request, no temp file left. Random kills (the kill -9 loop)
rarely land in these windows; this walks through all of them."""

from __future__ import annotations

import json
import os

from review_helpers import request, write_json
from test_inbox_kill9 import FAILING, Drop, check

import council.review.files as files
import council.review.inbox as inbox
from council.cli.main import main


def council_forked(*argv: str, crash_at: int = 0) -> int:
    """``council ARGV`` in a forked child (no interpreter start-up per run) whose ``crash_at``-th rename ends it on the
    spot with ``os._exit`` (a fault double, nothing else: no ``finally`` runs, the kernel drops its lock). Returns the
    exit code, 137 for the crash."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 70
        try:
            calls, real = [0], files.move_new

            def move_new(src, dst):
                calls[0] += 1
                if calls[0] == crash_at:
                    os._exit(137)
                return real(src, dst)

            files.move_new = inbox.move_new = move_new
            code = main(list(argv))
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def drops() -> list[Drop]:
    valid = json.dumps(request(request_id="a")).encode()
    return [
        Drop("a.json", "valid", valid, "a"),
        Drop("b.json", "malformed", b'{"request_id": "b", '),
        Drop("c.json", "fails", json.dumps(request(request_id="c", context={"summary": FAILING})).encode(), "c"),
        Drop("d.json", "twin", json.dumps(request(request_id="a", proposer="Twin")).encode(), "a"),
    ]


def test_a_crash_before_any_rename_is_finished_by_the_next_start(tmp_path):
    script = write_json(tmp_path / "script.json",
                        {"rules": [{"when": {"schema": "RoleReply", "anywhere": FAILING}, "error": "client"}]})
    args = ("--once", "--provider", "scripted", "--script", str(script), "--jobs", "1", "--quiet")
    crashes = 0
    for at in range(1, 40):
        box = tmp_path / f"box{at}"
        (box / "inbox").mkdir(parents=True)
        for drop in drops():
            (box / "inbox" / drop.name).write_bytes(drop.body)
        crashed = council_forked("inbox", str(box), *args, crash_at=at)
        if crashed != 137:
            assert crashed == 3  # c.json failed: every rename done, none crashed
            break
        crashes += 1
        assert council_forked("inbox", str(box), *args) in (0, 3)  # 3 when c.json goes to failed/ in this run
        check(box, drops())
    # 4 claims, the decision, the move to done/, and for each of 3 set-asides its document and its move
    assert crashes == 12, f"{crashes} crash points"
