"""The evidence tools on a real folder: confined to the workspace root, refusing with a reason, bounded, timed.

Every case runs twice: in a plain folder (the ``.gitignore`` files are parsed here) and in a git repository (git
says what is ignored).
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from evidence_helpers import PLAN, SECRET, make_workspace

from council.evidence import WorkspaceTools
from council.evidence import tools as tool_impl
from council.evidence.ignore import GitignoreRules, GitRepository


@pytest.fixture(params=["plain", "git"])
def root(tmp_path: Path, request) -> Path:
    return make_workspace(tmp_path, git=request.param == "git")


def run(tools: WorkspaceTools, tool: str, query: str, regex: bool = False):
    return anyio.run(tools.run, tool, query, regex)


def test_the_workspace_kind_is_what_git_says(root: Path):
    ignorer = anyio.run(WorkspaceTools(root).workspace).ignorer
    assert isinstance(ignorer, GitRepository if (root / ".git").exists() else GitignoreRules)


@pytest.mark.parametrize("query, refusal", [
    ("../outside/secret.txt", "outside_workspace"),
    ("src/../../outside/secret.txt", "outside_workspace"),
    ("out_link", "outside_workspace"),  # a symlink that points out
    ("dir_link/secret.txt", "outside_workspace"),  # through a symlinked folder
    (".env", "secret"),
    ("config/.env.production", "secret"),
    ("keys/id_rsa", "secret"),
    ("server.pem", "secret"),
    ("innocent_name", "secret"),  # a harmless name for a secrets file
    ("build/bundle.js", "gitignored"),
    ("debug.log", "gitignored"),
    ("logo.png", "binary"),
    ("big.txt", "too_large"),
    ("src", "not_a_file"),
    ("src/missing.py", "not_found"),
])
def test_read_file_refuses_with_a_reason(root: Path, query: str, refusal: str):
    result = run(WorkspaceTools(root), "read_file", query)
    assert not result.ok and result.refusal == refusal, result
    assert result.text == "" and result.uris == []
    assert "OUTSIDE-SECRET" not in result.model_dump_json() and SECRET not in result.model_dump_json()


def test_absolute_paths_outside_are_refused_inside_are_read(root: Path, tmp_path: Path):
    tools = WorkspaceTools(root)
    assert run(tools, "read_file", str(tmp_path / "outside" / "secret.txt")).refusal == "outside_workspace"
    assert run(tools, "read_file", "/etc/passwd").refusal == "outside_workspace"
    inside = run(tools, "read_file", str(root / "notes" / "plan.md"))
    assert inside.ok and PLAN in inside.text and inside.files == ["notes/plan.md"]


def test_git_internals_are_never_read(root: Path):
    if not (root / ".git").exists():
        pytest.skip("no repository")
    assert run(WorkspaceTools(root), "read_file", ".git/config").refusal == "secret"


def test_read_file_refuses_hostile_queries_instead_of_raising(root: Path):
    """A line range of thousands of digits (int() refuses it) and a NUL byte are refusals, not exceptions."""
    tools = WorkspaceTools(root)
    huge = run(tools, "read_file", "src/app.py:1-" + "9" * 5000)
    assert not huge.ok and huge.refusal == "not_found"
    for query in ("src/app.py\0", "src/\0app.py:1-2"):
        found = run(tools, "read_file", query)
        assert not found.ok and found.refusal == "not_found", query
    assert run(tools, "read_file", "src/app.py:1-999999999").ok  # nine digits still read as a range


def test_read_file_reads_text_with_line_numbers_and_a_line_range(root: Path):
    tools = WorkspaceTools(root)
    whole = run(tools, "read_file", "src/app.py")
    assert whole.ok and whole.count == 2 and whole.files == ["src/app.py"]
    assert whole.uris == [(root / "src" / "app.py").resolve().as_uri()]
    assert "    1  def main():" in whole.text and "2 lines" in whole.text
    part = run(tools, "read_file", "src/orders.py:2-3")
    assert part.ok and "lines 2-3 of 3" in part.text and "class Orders" not in part.text
    assert run(tools, "read_file", "keep.log").ok  # re-included by "!keep.log"


def test_an_empty_file_is_read_as_empty_with_or_without_a_line_range(root: Path):
    (root / "src" / "empty.py").write_text("")
    tools = WorkspaceTools(root)
    for query in ("src/empty.py", "src/empty.py:1-5"):
        empty = run(tools, "read_file", query)
        assert empty.ok and empty.count == 0 and empty.files == ["src/empty.py"], empty
        assert "the file is empty" in empty.text


def test_search_code_literal_and_regex_skip_what_may_not_be_shown(root: Path):
    tools = WorkspaceTools(root)
    found = run(tools, "search_code", "todo")  # all lowercase: case-insensitive
    assert found.ok and found.count == 2 and sorted(found.files) == ["src/app.py", "src/orders.py"]
    assert "build/" not in found.text and "debug.log" not in found.text and "big.txt" not in found.text
    assert "logo.png" not in found.text and SECRET not in found.text and "OUTSIDE" not in found.text
    assert set(found.uris) == {(root / f).resolve().as_uri() for f in ("src/app.py", "src/orders.py")}
    regex = run(tools, "search_code", r"return \d+", True)
    assert regex.ok and regex.count == 1 and "src/app.py:2:" in regex.text
    assert run(tools, "search_code", "TODO: SPEED").count == 0  # mixed case: case-sensitive
    secret = run(tools, "search_code", "hunter2")
    assert secret.ok and secret.count == 0 and "hunter2" not in secret.text


def test_a_bad_regex_is_refused_with_the_compiler_s_reason(root: Path):
    result = run(WorkspaceTools(root), "search_code", "billing(", True)
    assert result.refusal == "bad_pattern" and "missing )" in result.detail


def test_search_matches_are_bounded(root: Path):
    (root / "src" / "many.py").write_text("".join(f"x = {i}  # needle\n" for i in range(500)), encoding="utf-8")
    result = run(WorkspaceTools(root), "search_code", "needle")
    assert result.ok and result.count == tool_impl.MAX_MATCHES and result.truncated
    assert len(result.text.splitlines()) == tool_impl.MAX_MATCHES + 1


def test_list_files_globs_inside_the_workspace_only(root: Path):
    tools = WorkspaceTools(root)
    py = run(tools, "list_files", "*.py")
    assert py.ok and py.text.splitlines()[1:] == ["src/app.py", "src/orders.py"] and py.count == 2
    folder = run(tools, "list_files", "notes")
    assert folder.text.splitlines()[1:] == ["notes/plan.md"]
    everything = run(tools, "list_files", "**").text
    for hidden in (".env", "build/bundle.js", "debug.log", "keys/id_rsa", "server.pem", "dir_link", "out_link",
                   "innocent_name", ".git/"):
        assert hidden not in everything, hidden
    assert "keep.log" in everything and "logo.png" in everything  # listed, even if a binary is not read
    assert run(tools, "list_files", "../*").refusal == "outside_workspace"
    assert run(tools, "list_files", "/etc/*").refusal == "outside_workspace"


def test_listing_is_bounded(root: Path):
    many = root / "gen"
    many.mkdir()
    for i in range(tool_impl.MAX_LISTED + 20):
        (many / f"f{i:03}.txt").write_text("x", encoding="utf-8")
    result = run(WorkspaceTools(root), "list_files", "gen/*.txt")
    assert result.count == tool_impl.MAX_LISTED + 20 and result.truncated
    assert len(result.text.splitlines()) == tool_impl.MAX_LISTED + 1


def test_unknown_tools_are_refused(root: Path):
    assert run(WorkspaceTools(root), "run_command", "rm -rf /").refusal == "unknown_tool"


def test_a_tool_past_its_time_limit_is_refused(root: Path, monkeypatch):
    def slow(ws, query, regex, deadline):
        time.sleep(3)
        raise AssertionError("never returned in time")

    monkeypatch.setitem(tool_impl.TOOLS, "read_file", slow)
    tools = WorkspaceTools(root, seconds=0.2)
    started = time.monotonic()
    result = run(tools, "read_file", "src/app.py")
    assert result.refusal == "timeout" and time.monotonic() - started < 2.5


def test_searching_stops_at_the_deadline(root: Path):
    ws = anyio.run(WorkspaceTools(root).workspace)
    result = tool_impl.search_code(ws, "TODO", False, time.monotonic() - 1)
    assert result.ok and result.truncated and result.count == 0


def test_the_overview_shows_the_top_level_without_secrets_or_ignored_entries(root: Path):
    overview = anyio.run(WorkspaceTools(root).overview)
    assert {"src/", "notes/", "keys/", "keep.log", ".gitignore"} <= set(overview)
    for hidden in (".env", "build/", "debug.log", "server.pem", "out_link", "dir_link", "innocent_name", ".git/"):
        assert hidden not in overview, hidden
