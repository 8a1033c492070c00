"""``council review FILE|-`` as a subprocess: the decision on stdout, progress on stderr, and the exit codes an agent
relies on (0 APPROVE, 1 REJECT, 2 NEEDS_MORE_INFO, 3 could not review)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from review_helpers import COUNCIL, SEED_REQUEST, request, role_reply, rule, run_council, seed_story_script, write_json

SCRIPTED = ("--provider", "scripted")


@pytest.fixture
def files(tmp_path: Path):
    def make(name: str, data) -> str:
        return str(write_json(tmp_path / name, data))
    return make


def test_approve_prints_markdown_and_exits_0(files):
    r = run_council("review", files("req.json", SEED_REQUEST), *SCRIPTED)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("## Council review: \u2705 APPROVE\n")
    assert "Review panel for DECLARE_PASS: Overfitting Auditor" in r.stderr and "Traceback" not in r.stderr


def test_reject_with_json_prints_only_the_decision_and_exits_1(files):
    r = run_council("review", files("req.json", SEED_REQUEST), *SCRIPTED, "--script",
                    files("script.json", seed_story_script()), "--json", "--quiet")
    assert r.returncode == 1, r.stderr
    decision = json.loads(r.stdout)
    assert decision["final_outcome"] == "REJECT" and decision["request_id"] == "req_123456789"
    assert len(decision["verdicts"]) == 5 and decision["audit"]["rule"] == "blocking_issues"
    assert len(decision["audit"]["request_sha256"]) == 64
    assert r.stderr == ""


@pytest.mark.parametrize("how", ["missing artifacts", "a role needs more info"])
def test_needs_more_info_exits_2(files, how):
    if how == "missing artifacts":
        args = ("review", files("req.json", request(artifacts={})), *SCRIPTED)
    else:
        script = files("s.json", {"rules": [rule("Risk Officer", role_reply("NEEDS_MORE_INFO", 0.9))]})
        args = ("review", files("req.json", SEED_REQUEST), *SCRIPTED, "--script", script, "--no-debate")
    r = run_council(*args, "--json")
    assert r.returncode == 2, r.stderr
    assert json.loads(r.stdout)["final_outcome"] == "NEEDS_MORE_INFO"


def test_stdin_is_read_with_a_dash():
    r = run_council("review", "-", *SCRIPTED, "--json", stdin=json.dumps(request(change_type="CODE_REFACTOR")))
    assert r.returncode == 0, r.stderr
    assert [v["role"] for v in json.loads(r.stdout)["verdicts"]] == ["Code Reviewer", "Quant Researcher",
                                                                    "Devil's Advocate"]


def test_a_pipe_path_is_read_as_a_stream():
    """``council review <(…)``: the shell passes ``/dev/fd/N``, a link to a pipe, which the inbox would refuse."""
    r, w = os.pipe()
    os.write(w, json.dumps(SEED_REQUEST).encode())
    os.close(w)
    try:
        out = subprocess.run([*COUNCIL, "review", f"/dev/fd/{r}", *SCRIPTED, "--json"], pass_fds=(r,),
                             capture_output=True, text=True, timeout=90)
    finally:
        os.close(r)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["request_id"] == "req_123456789"


def test_a_file_over_the_limit_is_refused_by_its_size_before_it_is_read(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(20 * 1024 * 1024 + 1)
    r = run_council("review", str(big), *SCRIPTED, "--json")
    assert r.returncode == 3
    assert json.loads(r.stdout)["error"]["details"] == {"reason": "too_large", "limit": 20 * 1024 * 1024,
                                                        "size": 20 * 1024 * 1024 + 1}  # the size: read by fstat


@pytest.mark.parametrize(("stdin", "field"), [("{not json", None), (json.dumps(request(change_type="SHIP")),
                                                                    "change_type")])
def test_a_malformed_request_exits_3_with_the_error_shape(stdin, field):
    r = run_council("review", "-", *SCRIPTED, "--json", stdin=stdin)
    assert r.returncode == 3
    error = json.loads(r.stdout)["error"]
    assert set(error) == {"code", "message", "details"} and error["code"] == "validation"
    if field:
        assert list(error["details"]["fields"]) == [field]
    else:
        assert error["details"]["reason"] == "not_json"
    assert r.stderr.startswith("council review: ") and "Traceback" not in r.stderr


def test_a_failing_model_is_could_not_review_never_a_verdict(files):
    script = files("s.json", {"rules": [{"when": {"schema": "RoleReply", "purpose": "Risk Officer"},
                                         "error": "client"}]})
    r = run_council("review", files("req.json", SEED_REQUEST), *SCRIPTED, "--script", script)
    assert r.returncode == 3
    assert r.stdout.startswith("## Council review: could not review\n") and "Risk Officer" in r.stdout
    assert "APPROVE" not in r.stdout and "REJECT" not in r.stdout


@pytest.mark.parametrize("args", [("review",), ("review", "x.json", "--bogus"), ("review", "missing.json"),
                                  ("review", "-", "--artifact-budget", "10"), ("review", "-", "--script", "s.json")])
def test_usage_problems_exit_3_not_2_which_means_needs_more_info(args):
    r = run_council(*args)
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
