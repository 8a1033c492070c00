"""The evidence tools against a workspace that changes under them: what they checked is what they open.

A path is checked (resolved, judged by name) and only then opened; a process that swaps a file or a folder for a
symlink in between must not get outside content read. The direct tests make that swap at the worst moment (right
after the check: ``Workspace.locate`` for ``read_file``, the listing of the candidates for ``search_code``), the
racing test lets another process swap files for symlinks and back as fast as it can while the tools run. Also here:
FIFOs swapped in never block a tool, and a file with more than one hard link (``notes.txt`` linked to ``.env``, or
to a file outside) is never read or searched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from council.evidence import WorkspaceTools, opening
from council.evidence import tools as tool_impl
from council.evidence.workspace import Workspace

OUTSIDE = "OUTSIDE-CONTENT-91c"
INSIDE = "INSIDE-CONTENT"
FILES = 4
RACING_READS = 300
RACING_SEARCHES = 30
SWAPPER_SECONDS = 60  # the swapping process ends itself after this, should the test not stop it

SWAPPER = r"""
import os, sys, time
stop, staging, target, seconds, *paths = sys.argv[1:]
ends = time.monotonic() + float(seconds)
os.makedirs(staging, exist_ok=True)
ready = True
while not os.path.exists(stop) and time.monotonic() < ends:
    for i, path in enumerate(paths):  # every file a symlink out of the workspace
        link = os.path.join(staging, f"link{i}")
        os.symlink(target, link)
        os.replace(link, path)
    for i, path in enumerate(paths):  # and every one a plain file again
        plain = os.path.join(staging, f"plain{i}")
        with open(plain, "w") as f:
            f.write(f"value = '{i} INSIDE-CONTENT'\n")
        os.replace(plain, path)
    if ready:
        print("swapping", flush=True)
        ready = False
"""


def run(tools: WorkspaceTools, tool: str, query: str, regex: bool = False):
    return anyio.run(tools.run, tool, query, regex)


def racing_workspace(base: Path, git: bool = False) -> tuple[Path, Path]:
    """``base/ws`` with ``src/f0.txt`` … (INSIDE content), ``base/outside`` with ``secret.txt`` and a ``src`` of its
    own holding the same names (OUTSIDE content)."""
    root, outside = base / "ws", base / "outside"
    (root / "src").mkdir(parents=True)
    (outside / "src").mkdir(parents=True)
    (outside / "secret.txt").write_text(f"value = '{OUTSIDE}'\n", encoding="utf-8")
    for i in range(FILES):
        (root / "src" / f"f{i}.txt").write_text(f"value = '{i} {INSIDE}'\n", encoding="utf-8")
        (outside / "src" / f"f{i}.txt").write_text(f"value = '{OUTSIDE}'\n", encoding="utf-8")
    (root / "README.md").write_text("# ws\n", encoding="utf-8")
    if git:
        subprocess.run(["git", "init", "-q", "."], cwd=root, check=True, capture_output=True)
    return root, outside


@pytest.fixture(params=["plain", "git"])
def ws(tmp_path: Path, request) -> tuple[Path, Path]:
    return racing_workspace(tmp_path, git=request.param == "git")


def swap_for_link(path: Path, target: Path) -> None:
    """``path`` (a file or a folder) becomes a symlink to ``target``, in one rename."""
    link = path.with_name(path.name + ".swap")
    os.symlink(target, link)
    if path.is_dir() and not path.is_symlink():
        path.rename(path.with_name(path.name + ".was"))
    os.replace(link, path)


def leaked(result) -> bool:
    return OUTSIDE in result.model_dump_json()


# --- the swap at the worst moment ----------------------------------------------------------------------------------


@pytest.mark.parametrize("walks", [True, False], ids=["openat", "by_name"])
@pytest.mark.parametrize("swapped", ["file", "folder"])
def test_read_file_opens_what_it_checked(ws: tuple[Path, Path], monkeypatch, swapped: str, walks: bool):
    """``by_name``: where ``os.open`` takes no ``dir_fd`` (Windows) the file is opened by name and verified after."""
    root, outside = ws
    monkeypatch.setattr(opening, "WALKS", walks)
    assert run(WorkspaceTools(root), "read_file", "src/f1.txt").ok
    checked = Workspace.locate

    def locate_then_swap(self, query):
        found = checked(self, query)
        if swapped == "file":
            swap_for_link(root / "src" / "f1.txt", outside / "secret.txt")
        else:
            swap_for_link(root / "src", outside / "src")
        return found

    monkeypatch.setattr(Workspace, "locate", locate_then_swap)
    result = run(WorkspaceTools(root), "read_file", "src/f1.txt")
    assert not leaked(result), result
    assert not result.ok and result.refusal == "not_found" and "changed" in result.detail, result


@pytest.mark.parametrize("swapped", ["file", "folder"])
def test_search_code_opens_what_it_listed(ws: tuple[Path, Path], monkeypatch, swapped: str):
    root, outside = ws
    listed = tool_impl._candidates

    def list_then_swap(workspace, deadline):
        found = listed(workspace, deadline)
        if swapped == "file":
            for i in range(FILES):
                swap_for_link(root / "src" / f"f{i}.txt", outside / "secret.txt")
        else:
            swap_for_link(root / "src", outside / "src")
        return found

    monkeypatch.setattr(tool_impl, "_candidates", list_then_swap)
    result = run(WorkspaceTools(root), "search_code", "value")
    assert result.ok and not leaked(result), result
    assert result.count == 0 and result.files == [] and not result.truncated


def test_symlinks_that_stay_inside_are_still_read_and_searched(ws: tuple[Path, Path]):
    root, _ = ws
    os.symlink(root / "src" / "f2.txt", root / "alias.txt")
    os.symlink(root / "src", root / "code")
    tools = WorkspaceTools(root)
    through_folder = [] if (root / ".git").exists() else ["code/f2.txt", str(root / "code" / "f2.txt")]
    for query in ["alias.txt", str(root / "alias.txt"), *through_folder]:  # git judges a path through a link ignored
        read = run(tools, "read_file", query)
        assert read.ok and f"2 {INSIDE}" in read.text and read.files == ["src/f2.txt"], (query, read)
    found = run(tools, "search_code", f"2 {INSIDE}")
    assert found.ok and found.count >= 1 and "src/f2.txt" in found.files


def test_a_fifo_swapped_in_never_blocks(ws: tuple[Path, Path], monkeypatch):
    """A FIFO opened for reading blocks until someone writes to it: a file swapped for one after the check is
    refused at once (read_file) or skipped (search_code: before, the search child waited on it until it was killed
    at the deadline, every file after it unsearched)."""
    root, _ = ws
    checked, listed = Workspace.locate, tool_impl._candidates
    fifo = root / "src" / "f3.txt"

    def swap_for_fifo() -> None:
        fifo.unlink()
        os.mkfifo(fifo)

    def locate_then_swap(self, query):
        found = checked(self, query)
        swap_for_fifo()
        return found

    def list_then_swap(workspace, deadline):
        found = listed(workspace, deadline)
        swap_for_fifo()
        return found

    tools = WorkspaceTools(root, seconds=2)
    try:
        monkeypatch.setattr(Workspace, "locate", locate_then_swap)
        read = run(tools, "read_file", "src/f3.txt")
        assert not read.ok and read.refusal == "not_found", read
        monkeypatch.setattr(Workspace, "locate", checked)
        fifo.unlink()
        fifo.write_text("value = 'back'\n", encoding="utf-8")
        monkeypatch.setattr(tool_impl, "_candidates", list_then_swap)
        found = run(tools, "search_code", "value")
        assert found.ok and not found.truncated and found.count == FILES - 1, found
    finally:  # a reader still blocked on the FIFO is let go (opening it to write and closing it ends its read)
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass  # no reader, or no FIFO


@pytest.mark.skipif(not sys.platform.startswith(("linux", "darwin")), reason="the kernel names no descriptor's path")
def test_a_folder_moved_out_while_it_is_walked_is_refused(ws: tuple[Path, Path]):
    """The search child keeps the folder it walks open for the next file; moved out of the workspace meanwhile, its
    files are refused by where the kernel says they lie, not read through the folder still open."""
    root, outside = ws
    with opening.Opener(root) as opener:
        fd, _ = opener.open("src/f0.txt")
        os.close(fd)
        (root / "src").rename(outside / "moved")
        with pytest.raises(opening.Refused) as refused:
            opener.open("src/f1.txt")
    assert refused.value.code == "outside_workspace"


# --- hard links ----------------------------------------------------------------------------------------------------


def test_a_hard_link_to_a_secret_or_outside_file_is_never_read_or_searched(ws: tuple[Path, Path]):
    root, outside = ws
    (root / ".env").write_text(f"TOKEN='{OUTSIDE}'\n", encoding="utf-8")
    os.link(root / ".env", root / "notes.txt")  # a secret under an innocent name
    os.link(outside / "secret.txt", root / "src" / "copy.txt")  # a file outside, linked in
    tools = WorkspaceTools(root)
    for query in ("notes.txt", "src/copy.txt"):
        refused = run(tools, "read_file", query)
        assert not refused.ok and refused.refusal == "hard_link" and not leaked(refused), (query, refused)
    found = run(tools, "search_code", "value")
    assert found.ok and not leaked(found) and found.count == FILES, found
    assert not leaked(run(tools, "search_code", "TOKEN"))
    assert run(tools, "read_file", "src/f0.txt").ok  # files with one link are read as before


# --- racing ---------------------------------------------------------------------------------------------------------


def test_files_swapped_for_symlinks_under_load_never_leak(ws: tuple[Path, Path], tmp_path: Path):
    """Another process swaps every ``src/f*.txt`` for a symlink out and back, as fast as it can, while
    :data:`RACING_READS` reads and :data:`RACING_SEARCHES` searches run: none may show outside content."""
    root, outside = ws
    paths = [str(root / "src" / f"f{i}.txt") for i in range(FILES)]
    stop = tmp_path / "stop"
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(stop), str(tmp_path / "staging"),
                                str(outside / "secret.txt"), str(SWAPPER_SECONDS), *paths],
                               stdout=subprocess.PIPE, text=True)
    tools = WorkspaceTools(root)
    reads = searches = []
    try:
        assert swapper.stdout is not None and swapper.stdout.readline() == "swapping\n"
        reads = [run(tools, "read_file", f"src/f{n % FILES}.txt") for n in range(RACING_READS)]
        searches = [run(tools, "search_code", "value") for _ in range(RACING_SEARCHES)]
    finally:
        stop.touch()
        try:
            swapper.wait(timeout=10)
        finally:
            if swapper.poll() is None:
                swapper.kill()
                swapper.wait()
            swapper.stdout.close()
    leaks = (sum(map(leaked, reads)), sum(map(leaked, searches)))
    assert leaks == (0, 0), f"read_file leaked {leaks[0]} of {len(reads)}, search_code {leaks[1]} of {len(searches)}"
    assert any(r.ok and INSIDE in r.text for r in reads)  # the race let some reads through, as it should
    assert all(r.ok or r.refusal in ("outside_workspace", "not_found") for r in reads), reads
    assert any(s.count > 0 for s in searches) and all(s.ok for s in searches)


def test_a_quiet_workspace_reads_every_time(ws: tuple[Path, Path]):
    """Without anyone swapping, the same requests all succeed (the refusals above come from the race)."""
    root, _ = ws
    tools = WorkspaceTools(root)
    assert all(run(tools, "read_file", f"src/f{i}.txt").ok for i in range(FILES))
    assert run(tools, "search_code", "value").count == FILES


def test_a_link_that_changes_while_it_is_resolved_is_not_found(ws: tuple[Path, Path], monkeypatch):
    """``os.path.realpath`` raises when a link it is following is swapped for a file (``readlink``: EINVAL); that is
    a file that changed under the check, refused as ``not_found``, not a failed tool."""
    root, _ = ws
    tools = WorkspaceTools(root)
    anyio.run(tools.workspace)

    def swapped_meanwhile(path, *args, **kwargs):
        raise OSError(22, "Invalid argument", path)

    monkeypatch.setattr(os.path, "realpath", swapped_meanwhile)
    result = run(tools, "read_file", "src/f0.txt")
    assert not result.ok and result.refusal == "not_found", result
