"""Requests written in the same write as ``initialize`` (before the lazy load has finished) against a real
``council serve``: each is answered exactly once, with the contract's data when refused, even when ``shutdown`` and
``exit`` follow right behind (hostile tests, session 8)."""

from __future__ import annotations

from collections import Counter

from .raw import RawSidecar, assert_error, notification, request


def answers(sc: RawSidecar) -> list[dict]:
    """Every message until stdout closes."""
    got = sc.quiet(30)
    assert all("method" not in m for m in got), got
    return got


def test_requests_pipelined_behind_initialize_are_each_answered_once() -> None:
    with RawSidecar() as sc:
        sc.send(request(1, "initialize", {"processId": None, "capabilities": {}}), notification("initialized"),
                request(2, "council/personas", {}), request(3, "council/providers", {}), request(4, "nope", {}),
                request(5, "council/consult", {"bad": 1}), request(6, "shutdown"), notification("exit"))
        got = answers(sc)
        assert sc.exit_code() == 0
    assert Counter(m["id"] for m in got) == {i: 1 for i in range(1, 7)}, got  # council/providers went unanswered
    by_id = {m["id"]: m for m in got}
    assert "result" in by_id[1] and "result" in by_id[2] and by_id[6]["result"] is None
    assert_error(by_id[4], -32601, 4)
    assert_error(by_id[5], -32602, 5)
    if "error" in by_id[3]:  # still running when exit came: refused, not dropped
        assert assert_error(by_id[3], -32600, 3)["details"]["reason"] == "shutdown"


def test_a_request_still_running_at_the_end_of_input_is_answered() -> None:
    with RawSidecar() as sc:
        sc.send(request(1, "initialize", {"processId": None, "capabilities": {}}), request(2, "council/providers", {}))
        sc.close_stdin()
        got = answers(sc)
        assert sc.exit_code() == 1
    assert Counter(m["id"] for m in got) == {1: 1, 2: 1}, got
