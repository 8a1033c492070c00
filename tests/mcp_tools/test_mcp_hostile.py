"""Every request ``council mcp`` sends its client ends — with the reply, an error, a cancel or a deadline — driven by
the hostile client of :mod:`tests.mcp_tools.hostile` on a real subprocess (issue 30; the whole pass, every reply to
every request, is marked slow): a malformed reply to
``sampling/createMessage``, ``roots/list`` or ``elicitation/create`` fails the request it answers wherever its id can
be read (a line that is not JSON or too long included), a request nobody answers ends at its deadline and is
withdrawn, a cancelled consult withdraws its sampling requests and gets no response, and the client's model failing
is a ``validation`` error (``client_model_failed``) — neither ``permission`` nor ``internal``. After each, a tool call
with good replies succeeds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from .hostile import (
    MALFORMED,
    MODEL_FAILURES,
    HostileClient,
    deadline_kinds,
    envelope,
    good_result,
    run_cases,
    tool_error,
)

SAMPLING = "sampling/createMessage"
FAILED = "tool error validation/client_model_failed"


def assert_all(cases, ended: dict[str, str], within: float) -> None:
    """Each case ended as ``ended`` says, within ``within`` seconds, with the server still serving and no answer
    carrying an id the client never used."""
    assert [(c.reply, c.ended) for c in cases] == list(ended.items())
    for c in cases:
        assert c.seconds < within and c.still_serving and c.stray == 0, c


def test_a_reply_line_that_is_not_json_or_too_long_fails_the_sampling_request_it_answers(tmp_path: Path):
    """Before: the line was answered as if it were a request (-32700 carrying the server's own id) and the sampling
    request never failed, so the tool call never returned."""
    cases = run_cases(tmp_path, SAMPLING, ["not_json", "not_utf8", "oversize"], deadline=None, timeout=20)
    assert_all(cases, dict.fromkeys(["not_json", "not_utf8", "oversize"], FAILED), within=15)


def test_a_malformed_sampling_result_is_the_clients_model_failing_not_a_refusal(tmp_path: Path):
    """Before: ``permission`` ("did not let the council use its model") for each of these."""
    kinds = ["no_result_no_error", "result_null", "result_list", "result_string", "error_no_message"]
    assert_all(run_cases(tmp_path, SAMPLING, kinds, deadline=None), dict.fromkeys(kinds, FAILED), within=15)


def test_the_clients_model_failing_is_not_an_internal_error(tmp_path: Path):
    """Before: ``internal`` (reserved for Council's own faults) for image content, no model, empty text."""
    assert_all(run_cases(tmp_path, SAMPLING, list(MODEL_FAILURES), deadline=None),
               dict.fromkeys(MODEL_FAILURES, FAILED), within=15)


def test_a_sampling_request_nobody_answers_is_withdrawn_at_its_deadline(tmp_path: Path):
    """Before: sampling had no deadline (and no ``--sampling-timeout``): the tool call waited forever."""
    cases = run_cases(tmp_path, SAMPLING, ["never"], deadline=1)
    assert_all(cases, {"never": FAILED}, within=10)
    assert cases[0].asked == cases[0].withdrawn > 0  # each one withdrawn with notifications/cancelled


def test_cancelling_a_consult_withdraws_its_sampling_requests_and_gets_no_response(tmp_path: Path):
    """Before: the pending sampling requests stayed open (the client's model kept generating, and billing) and the
    cancelled call was answered with error code 0 "Request cancelled"; MCP says a cancelled request gets none."""
    ws = tmp_path / "ws"
    client = HostileClient(tmp_path, "--sampling-hints", "none", "--workspace", str(ws))
    try:
        client.initialize()
        client.after_cancel = {SAMPLING: lambda r: [envelope(r, result=good_result(r))]}  # a reply after the cancel
        call = client.consult()
        assert client.wait_for(lambda seen: any(r["method"] == SAMPLING for r in seen.requests.values()), 20)
        client.cancel(call)
        asked = {r["id"] for r in client.asked(SAMPLING)}
        assert client.wait_for(lambda seen: asked <= set(seen.withdrawn), 10), (asked, client.seen.withdrawn)
        time.sleep(1.0)  # a response to the cancelled call would come now
        assert client.answers_to(call) == []
        assert {r["id"] for r in client.asked(SAMPLING)} == asked  # nothing more was asked for the cancelled call
        client.after_cancel = {}
        again = client.consult()
        assert tool_error(client.answer(again, timeout=30)) is None
        ping = client.request("ping")
        assert client.answer(ping)["result"] == {}
        assert [a["id"] for a in client.seen.answers] == [1, again, ping]
    finally:
        assert client.close() == 0


NO_REPLY = ["after_cancel", "never"]  # with MALFORMED's ids that cannot be read: the deadline kinds


@pytest.mark.slow
def test_every_malformed_reply_to_sampling_ends_the_call(tmp_path: Path):
    kinds = [*MALFORMED, "duplicate", *NO_REPLY, *MODEL_FAILURES]
    cases = run_cases(tmp_path, SAMPLING, kinds, deadline=1)
    assert_all(cases, {k: "answered" if k == "duplicate" else FAILED for k in kinds}, within=10)
    assert all(c.withdrawn == (c.asked if c.reply in deadline_kinds() else 0) for c in cases), cases


@pytest.mark.slow
def test_every_malformed_reply_to_elicitation_ends_the_call(tmp_path: Path):
    """A malformed answer to a clarifying question is a validation error; no answer (or one whose id cannot be
    read) becomes an assumption at the deadline, and the question is withdrawn."""
    kinds = [*MALFORMED, "duplicate", *NO_REPLY]
    cases = run_cases(tmp_path, "elicitation/create", kinds, deadline=1)
    ended = {k: "tool error validation/malformed_response" for k in kinds}
    ended |= {"result_wrong_shape": "tool error validation/", **dict.fromkeys(["duplicate", *deadline_kinds()],
                                                                                "answered")}
    assert_all(cases, ended, within=10)
    assert all(c.withdrawn == (1 if c.reply in deadline_kinds() else 0) for c in cases), cases


@pytest.mark.slow
def test_every_malformed_reply_to_roots_leaves_the_workspace_and_the_call_runs(tmp_path: Path):
    kinds = [k for k in MALFORMED if k not in deadline_kinds()] + ["duplicate"]
    assert_all(run_cases(tmp_path, "roots/list", kinds), dict.fromkeys(kinds, "answered"), within=10)


@pytest.mark.slow
def test_a_roots_request_nobody_answers_is_withdrawn_at_its_deadline(tmp_path: Path):
    """roots/list waits 10 s (``council.mcpserver.roots.ROOTS_TIMEOUT``); then it is withdrawn and the call runs."""
    cases = run_cases(tmp_path, "roots/list", deadline_kinds())
    assert_all(cases, dict.fromkeys(deadline_kinds(), "answered"), within=20)
    assert all(c.asked == c.withdrawn == 1 for c in cases), cases
