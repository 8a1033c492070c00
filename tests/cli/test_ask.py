"""``council ask`` as a subprocess: the JSON snapshot, exit codes and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess

from .conftest import COUNCIL, PROBLEM, processes_with, run_council

FAST = ("--provider", "scripted", "--no-embeddings")


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_yes_json_prints_only_the_completed_snapshot():
    r = run_council("ask", *FAST, "--yes", "--json", PROBLEM)
    assert r.returncode == 0, r.stderr
    snap = json.loads(r.stdout)  # stdout is the snapshot and nothing else
    session = snap["session"]
    assert session["status"] == "completed"
    assert session["requestText"] == PROBLEM
    assumptions = [a["assumption"] for a in session["assumptionLog"]]
    assert assumptions == ["The main goal is to ship faster without raising risk.", "The timeline is this quarter."]
    assert all(q["status"] == "skipped" for q in session["questions"])
    assert "## The council's answer" in session["finalAnswer"]
    assert session["metadata"]["models"]["clarifier"]["provider"] == "scripted"
    assert "transcriptMarkdown" in snap
    assert "Traceback" not in r.stderr


def test_question_from_stdin_and_options_reach_the_session():
    r = run_council("ask", *FAST, "--json", "--personas", "security expert, Devil's Advocate",
                    "--depth", "brief", "--max-cycles", "1", "--max-personas", "2", stdin=PROBLEM + "\n")
    assert r.returncode == 0, r.stderr
    session = json.loads(r.stdout)["session"]
    assert session["requestText"] == PROBLEM
    assert [p["name"] for p in session["personaSelection"]["selectedPersonas"]] == [
        "Security Expert", "Devil's Advocate"]
    assert session["settings"]["depth"] == "brief" and session["debateCycles"] == 1
    assert len(session["assumptionLog"]) == 2  # stdin is not a tty: nobody to ask, so everything is assumed


def test_a_council_of_one_answers_without_debating_itself():
    r = run_council("ask", *FAST, "--yes", "--json", "--personas", "Security Expert", PROBLEM)
    assert r.returncode == 0, r.stderr
    session = json.loads(r.stdout)["session"]
    assert session["status"] == "completed" and session["debateCycles"] == 0 and session["discussions"] == []
    assert session["votes"] == [] and session["options"] == [] and "tally" not in session
    assert [(x["persona"], x["cycle"]) for x in session["responses"]] == [("Security Expert", 0)]
    assert "**Vote:**" not in session["finalAnswer"]


def test_human_output_shows_personas_votes_and_the_answer():
    r = run_council("ask", *FAST, "--yes", "--max-cycles", "1", PROBLEM)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for needed in ("The council uses scripted (the scripted test model).",
                   "  • Software Architect — Software Architect recommends a staged approach (cycle 1). · medium "
                   "confidence\n", "Cycle 1 · independent positions", "Options: A Staged approach · B Wait",
                   "Votes: A 2 (Software Architect and Senior Developer) · B 1 (Devil's Advocate).",
                   "After cycle 1:", "Vote: a majority for A · Staged approach",
                   "Assumed: The timeline is this quarter.", "The council's answer"):
        assert needed in out, needed
    # issue 21: the answer first — one compact line per persona, the full positions are in the transcript
    assert "Summary" not in out and "Advice" not in out and "The vote (" not in out
    before = out[:out.index("The council's answer")]
    assert len(before) < 1500, before
    assert "**" not in out and "\x1b[" not in out  # markdown rendered, no colors off a tty


def test_quiet_prints_only_the_answer():
    r = run_council("ask", *FAST, "--yes", "--quiet", "--max-cycles", "1", PROBLEM)
    assert r.returncode == 0, r.stderr
    assert r.stdout.lstrip().startswith("The council's answer")
    assert "Software Architect (cycle 1)" not in r.stdout


def test_bad_flag_is_a_one_line_usage_error():
    r = run_council("ask", "--bogus", PROBLEM)
    assert r.returncode == 2
    assert "unrecognized arguments: --bogus" in one_error_line(r.stderr)
    r = run_council("ask", "--depth", "huge", PROBLEM)
    assert r.returncode == 2
    assert "--depth" in one_error_line(r.stderr)
    r = run_council("ask", *FAST, "--max-cycles", "99", PROBLEM)
    assert r.returncode == 2
    assert "--max-cycles" in one_error_line(r.stderr)


def test_empty_question_is_a_usage_error():
    r = run_council("ask", *FAST, "--yes", stdin="")
    assert r.returncode == 2
    assert "no question" in one_error_line(r.stderr)


def test_unknown_persona_is_a_clear_error():
    r = run_council("ask", *FAST, "--yes", "--personas", "Wizard,Security Expert", PROBLEM)
    assert r.returncode == 2, r.stderr
    line = one_error_line(r.stderr)
    assert "Wizard" in line and "Security Expert" in line  # names the bad one and lists the valid ones


def test_unreachable_provider_exits_3_with_one_line():
    r = run_council("ask", "--provider", "openai", "--base-url", "http://127.0.0.1:9", "--no-embeddings",
                    "--yes", PROBLEM)
    assert r.returncode == 3, r.stderr
    line = one_error_line(r.stderr)
    assert "127.0.0.1:9" in line and line.startswith("council ask: error:")
    assert "Traceback" not in r.stdout


def test_missing_model_file_exits_3():
    r = run_council("ask", "--provider", "embedded", "--model", "/nonexistent/model.gguf", "--no-embeddings",
                    "--yes", "--json", PROBLEM)
    assert r.returncode == 3
    assert "/nonexistent/model.gguf" in one_error_line(r.stderr)
    assert r.stdout == ""


def test_failing_model_mid_session_exits_4(script_file):
    script = script_file({"rules": [{"when": {"schema": "PersonaReply"}, "error": "client"}]})
    r = run_council("ask", *FAST, "--script", script, "--yes", PROBLEM)
    assert r.returncode == 4, r.stdout + r.stderr
    assert "council ask: error: the session did not finish" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


def test_no_usable_reply_from_any_advisor_still_answers_and_exits_0(script_file):
    """Issue 30: the quick start's session ended with "Every advisor failed: the model's output was malformed" (exit
    4) when every reply stayed malformed; the council answers from what could be read of them, and says so."""
    cut = '{"position": "Rewrite billing in Rust one module at a time", "summary": ["Rust is safe", "Start sm'
    script = script_file({"rules": [{"when": {"schema": "PersonaReply"}, "reply": cut}]})
    r = run_council("ask", *FAST, "--script", script, "--depth", "brief", "--max-cycles", "2", PROBLEM, stdin="")
    assert r.returncode == 0, r.stdout + r.stderr
    answer = r.stdout[r.stdout.index("The council's answer"):]
    assert "Rewrite billing in Rust one module at a time" in answer
    assert "No advisor's reply could be used" in answer and "Every advisor failed" not in r.stdout + r.stderr


def test_sidecar_that_cannot_start_is_a_one_line_error(tmp_path):
    (tmp_path / "broken.toml").write_text("name = [\n", encoding="utf-8")
    r = run_council("ask", *FAST, "--yes", "--personas-dir", str(tmp_path), PROBLEM)
    assert r.returncode == 4
    line = one_error_line(r.stderr)
    assert "the sidecar did not start" in line and "broken.toml" in line


def test_sidecar_crash_mid_session_is_reported(script_file):
    script = script_file({"rules": [{"when": {"schema": "PersonaReply"}, "delay": 0.5}]})
    proc = subprocess.Popen([*COUNCIL, "ask", *FAST, "--script", script, "--yes", PROBLEM],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_COLOR": "1"})
    try:
        # Wait for what happened, not for a time: the debate has begun once its first cycle is printed (a sidecar
        # still starting on a busy machine would be a different failure: "did not start").
        seen: list[str] = []
        for line in proc.stdout:
            seen.append(line)
            if line.startswith("Cycle 1"):
                break
        else:
            raise AssertionError("the debate never began:\n" + "".join(seen))
        for pid in processes_with(script):
            if "serve" in open(f"/proc/{pid}/cmdline").read():
                os.kill(pid, signal.SIGSEGV)
        out, err = proc.communicate(timeout=60)
        out = "".join(seen) + out
    finally:
        proc.kill()
    assert proc.returncode == 4, out + err
    assert "the sidecar stopped unexpectedly: it was killed by SIGSEGV" in one_error_line(err)


# the chair streams a recommendation, then its reply is cut off (and its repair too): the answer is consolidated
DRAFT = "Rewrite the billing service in Rust right now."
CUT_OFF_CHAIR = {"rules": [{"when": {"schema": "SynthesisReply"},
                            "reply": '{"recommendation": "' + DRAFT + '", "agreements": ["x"], "risks'}]}


def test_a_failed_draft_of_the_answer_never_stands_beside_the_answer(script_file):
    """Issue 31: ``council ask`` printed "The council's answer" twice with two recommendations, the chair's streamed
    draft (which then failed) above the answer consolidated from the advisors. Off a terminal nothing printed can be
    taken back, so the draft is never printed: one answer, one heading."""
    script = script_file(CUT_OFF_CHAIR)
    r = run_council("ask", "--provider", "scripted", "--script", script, "--no-embeddings", "--yes",
                    "--max-cycles", "1", PROBLEM)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("The council's answer") == 1 and DRAFT not in r.stdout, r.stdout
    assert "Consolidated from the advisors' replies" in r.stdout
