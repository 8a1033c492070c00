"""``council ask`` with a workspace, memory and transcripts, and ``council decisions list|search|show|forget``, as a
user runs them: subprocesses, files on disk, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import PROBLEM, run_council

FAST = ("--provider", "scripted", "--no-embeddings", "--yes", "--max-cycles", "2", "--min-cycles", "2")
OTHER = "Which office snacks should we order for the party?"


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    return root


def test_ask_writes_the_transcript_and_keeps_the_decision_then_decisions_reads_it(tmp_path):
    root, out = workspace(tmp_path), tmp_path / "transcripts"
    r = run_council("ask", *FAST, "--workspace", str(root), "--memory", "--transcript", str(out), PROBLEM)
    assert r.returncode == 0, r.stderr
    [file] = list(out.iterdir())
    assert file.name.endswith(".md") and "should-we-split-our-monolith" in file.name
    assert f"Transcript written to {file}" in r.stdout
    text = file.read_text(encoding="utf-8")
    assert text.startswith(f"# {PROBLEM}") and "## The council's answer" in text and "## Convergence" in text
    assert (root / ".council" / "decisions.sqlite3").is_file()
    assert run_council("ask", *FAST, "--workspace", str(root), "--memory", OTHER).returncode == 0

    listed = run_council("decisions", "--workspace", str(root), "list")
    assert listed.returncode == 0, listed.stderr
    lines = [line for line in listed.stdout.splitlines() if line.strip()]
    assert len(lines) == 2 and OTHER in lines[0] and PROBLEM in lines[1] and "Staged approach" in lines[1]

    found = run_council("decisions", "--workspace", str(root), "--json", "search", "split the monolith")
    data = json.loads(found.stdout)
    assert [d["question"] for d in data] == [PROBLEM] and data[0]["similarity"] > 0.3  # the snacks share no word
    decision_id = data[0]["decision_id"]
    assert set(data[0]) >= {"options", "outcome", "tally", "arguments", "assumptions", "dissent", "decided_at"}

    shown = run_council("decisions", "--workspace", str(root), "show", decision_id[:8])
    assert shown.returncode == 0 and "Key arguments" in shown.stdout and "Dissent" in shown.stdout
    assert "The timeline is this quarter." in shown.stdout  # the assumption a skipped question left

    gone = run_council("decisions", "--workspace", str(root), "forget", decision_id)
    assert gone.returncode == 0 and decision_id in gone.stdout
    assert run_council("decisions", "--workspace", str(root), "show", decision_id).returncode == 1
    assert len(json.loads(run_council("decisions", "--workspace", str(root), "--json", "list").stdout)) == 1


def test_without_memory_or_transcript_nothing_is_written(tmp_path):
    root = workspace(tmp_path)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    r = run_council("ask", *FAST, "--workspace", str(root), PROBLEM)
    assert r.returncode == 0, r.stderr
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
    assert "Transcript written" not in r.stdout
    empty = run_council("decisions", "--workspace", str(root), "list")
    assert empty.returncode == 0 and "No decisions are kept yet" in empty.stdout
    assert not (root / ".council").exists()


def test_memory_needs_a_workspace():
    r = run_council("ask", *FAST, "--memory", PROBLEM)
    assert r.returncode == 2 and "--memory needs --workspace" in r.stderr


def test_a_transcript_folder_that_cannot_be_written_is_a_usage_error_before_any_model_call(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("hi\n", encoding="utf-8")
    for folder, why in [(afile, "it is a file"), (afile / "sub", f"{afile} is not a folder"),
                        (Path("/proc/council-transcripts"), "/proc is not writable")]:
        r = run_council("ask", *FAST, "--transcript", str(folder), PROBLEM)
        assert r.returncode == 2 and r.stdout == "", (folder, r.stdout, r.stderr)  # the sidecar never started
        assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"council ask: error: --transcript {folder}: ")
        assert why in r.stderr, r.stderr
    assert afile.read_text(encoding="utf-8") == "hi\n"
    fresh = tmp_path / "new" / "transcripts"  # created when the first transcript is written
    assert run_council("ask", *FAST, "--transcript", str(fresh), PROBLEM).returncode == 0
    assert len(list(fresh.iterdir())) == 1


def test_serve_says_at_start_when_its_transcript_folder_cannot_be_written(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("hi\n", encoding="utf-8")
    r = run_council("serve", "--provider", "scripted", "--no-embeddings", "--transcript-dir", str(afile))
    assert f"--transcript-dir: cannot write transcripts into {afile}: it is a file" in r.stderr, r.stderr


def test_a_file_that_is_not_a_decision_memory_is_one_clear_error_and_ask_skips_it_once(tmp_path):
    root = workspace(tmp_path)
    memory = root / ".council" / "decisions.sqlite3"
    memory.parent.mkdir()
    memory.write_text("junk\n", encoding="utf-8")
    for action in (["list"], ["search", "monolith"], ["show", "abcd"], ["forget", "abcd"], ["--json", "list"]):
        r = run_council("decisions", "--workspace", str(root), *action)
        assert r.returncode == 3 and r.stdout == "" and "Traceback" not in r.stderr, (action, r.stderr)
        assert r.stderr == (f"council decisions: error: {memory} is not a decision memory (file is not a database): "
                            f"move it away (mv {memory} {memory}.bak) and the council starts a new one\n")
    r = run_council("ask", *FAST, "--workspace", str(root), "--memory", PROBLEM)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("decision memory skipped") == 1 and f"{memory} is not a decision memory" in r.stderr
    assert memory.read_text(encoding="utf-8") == "junk\n"


def test_a_council_folder_linked_outside_the_workspace_keeps_nothing_there(tmp_path):
    root, elsewhere = workspace(tmp_path), tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".council").symlink_to(elsewhere)
    r = run_council("ask", *FAST, "--workspace", str(root), "--memory", PROBLEM)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("decision memory skipped") == 1 and "leads outside the workspace" in r.stderr
    assert list(elsewhere.iterdir()) == []
    listed = run_council("decisions", "--workspace", str(root), "list")
    assert listed.returncode == 3 and "leads outside the workspace" in listed.stderr
