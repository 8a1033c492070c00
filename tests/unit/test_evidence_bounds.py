"""Patterns the models write cannot freeze the sidecar: a regex that backtracks for ever is searched in a child
process killed at the deadline (the event loop keeps ticking meanwhile, and no child is left behind), and globs are
matched in linear time.

CPython's ``re`` holds the GIL while it matches, so on the old code ``(a+)+$`` against a line of 27 ``a``s and a
``b`` froze every thread for seconds, and ``*a*a*a*a*a*a*a*a*a*a*b`` against a long file name did the same.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import anyio
import pytest
from evidence_helpers import make_workspace

from council.evidence import WorkspaceTools, search
from council.evidence.globs import Glob

CATASTROPHIC = r"(a+)+$"  # exponential on a line of "a"s that does not end in "a"
STUCK_LINE = "a" * 27 + "b"
PATHOLOGICAL_GLOB = "*a*a*a*a*a*a*a*a*a*a*b"


@pytest.fixture(params=["plain", "git"])
def root(tmp_path: Path, request) -> Path:
    return make_workspace(tmp_path, git=request.param == "git")


@pytest.fixture
def workers(monkeypatch) -> list[int]:
    """The pids of the search children started during the test."""
    pids: list[int] = []
    real = search.Worker.__init__

    def spy(self) -> None:
        real(self)
        pids.append(self.child.pid)

    monkeypatch.setattr(search.Worker, "__init__", spy)
    return pids


async def run_while_ticking(tools: WorkspaceTools, tool: str, query: str, regex: bool):
    """The tool's result, how long it took, and the event loop's longest stall meanwhile."""
    gaps: list[float] = []
    done = anyio.Event()

    async def tick() -> None:
        last = time.monotonic()
        while not done.is_set():
            await anyio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    async with anyio.create_task_group() as tg:
        tg.start_soon(tick)
        await anyio.sleep(0.02)
        started = time.monotonic()
        result = await tools.run(tool, query, regex)
        elapsed = time.monotonic() - started
        await anyio.sleep(0.02)
        done.set()
    return result, elapsed, max(gaps)


def assert_reaped(pids: list[int]) -> None:
    """Each child is gone: reaped (not ours to wait for any more), not a zombie, not running."""
    assert pids
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        assert not Path(f"/proc/{pid}").exists() or sys.platform != "linux", f"{pid} is still in /proc"


def test_a_catastrophic_regex_is_cut_at_the_deadline_while_the_loop_keeps_ticking(root: Path, workers):
    (root / "notes" / "a_banana.txt").write_text("banana\n", encoding="utf-8")  # matches at once
    (root / "notes" / "stuck.txt").write_text(f"{STUCK_LINE}\nlast line: a\n", encoding="utf-8")
    result, elapsed, stall = anyio.run(run_while_ticking, WorkspaceTools(root, seconds=1.0), "search_code",
                                       CATASTROPHIC, True)
    assert elapsed < 1.0 + 2, elapsed
    assert stall < 0.5, f"the event loop stalled for {stall:.2f} s"
    assert result.ok and result.truncated, result
    assert result.text.splitlines()[0].endswith("(cut)") and "notes/a_banana.txt:1: banana" in result.text
    assert result.files == ["notes/a_banana.txt"] and "stuck.txt" not in result.text
    assert_reaped(workers)


def test_a_search_that_ends_in_time_reaps_its_child_too(root: Path, workers):
    result = anyio.run(WorkspaceTools(root).run, "search_code", r"TODO: \w+", True)
    assert result.ok and not result.truncated and result.count == 2
    assert_reaped(workers)


def test_non_ascii_file_names_reach_the_child_and_back(root: Path):
    name = "notes/café-ü.md"
    (root / name).write_text("a needle here\n", encoding="utf-8")
    result = anyio.run(WorkspaceTools(root).run, "search_code", "needle", False)
    assert result.ok and result.files == [name] and f"{name}:1: a needle here" in result.text
    assert result.uris == [(root / name).resolve().as_uri()]


@pytest.mark.parametrize("program", [
    "print('garbage')",
    "import sys; sys.exit(3)",
    "print('{\"match\": [0, 1, \"x\"]}'); raise SystemExit(1)",
    "print('{\"match\": [99, 1, \"x\"]}'); print('{\"end\": [1, 1, false]}')",  # a file it was not given
    "print('{\"searched\": [1, 1]}')",  # no end
])
def test_a_child_that_fails_or_writes_garbage_is_an_error_refusal(root: Path, monkeypatch, program: str):
    monkeypatch.setattr(search, "COMMAND", [sys.executable, "-c", f"import sys; sys.stdin.read(); {program}"])
    result = anyio.run(WorkspaceTools(root).run, "search_code", "TODO", False)
    assert not result.ok and result.refusal == "error" and result.detail.startswith("search worker"), result


def test_a_child_that_cannot_start_is_an_error_refusal(root: Path, monkeypatch, tmp_path: Path):
    monkeypatch.setattr(search, "COMMAND", [str(tmp_path / "no-such-python")])
    result = anyio.run(WorkspaceTools(root).run, "search_code", "TODO", False)
    assert result.refusal == "error" and "could not start" in result.detail


def test_a_pathological_glob_lists_promptly_with_the_right_answer(root: Path):
    gen = root / "gen"
    gen.mkdir()
    (gen / ("a" * 36)).write_text("x", encoding="utf-8")  # backtracks: many "a"s, no "b"
    (gen / ("x" + "a" * 10 + "b")).write_text("x", encoding="utf-8")  # ten "a"s, then "b"
    (gen / ("a" * 9 + "b")).write_text("x", encoding="utf-8")  # one "a" short
    result, elapsed, stall = anyio.run(run_while_ticking, WorkspaceTools(root), "list_files", PATHOLOGICAL_GLOB,
                                       False)
    assert elapsed < 1.0 and stall < 0.5, (elapsed, stall)
    assert result.ok and result.count == 1 and result.text.splitlines()[1:] == ["gen/x" + "a" * 10 + "b"]


def test_the_glob_matcher_is_linear_on_long_paths():
    glob = Glob(PATHOLOGICAL_GLOB, anchored=False)
    started = time.monotonic()
    assert not glob.match("a" * 4000)
    assert not glob.match("/".join(["a" * 30] * 130))
    assert glob.match("x/" * 500 + "a" * 10 + "b")
    assert not Glob("**/a*/**/a*/**/a*/**/b").match("/".join(["a"] * 2000))
    assert time.monotonic() - started < 0.5


def test_the_summary_counts_the_text_files_searched(root: Path):
    result = anyio.run(WorkspaceTools(root).run, "search_code", "todo", False)
    assert result.text.splitlines()[0] == "2 matches in 2 of 5 files searched"  # not the binary, not big.txt
