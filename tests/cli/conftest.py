"""Helpers for driving ``council ask`` / ``council doctor`` as a user would: subprocesses and a real pty."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

PROBLEM = "Should we split our monolith into services this quarter?"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COUNCIL = [sys.executable, "-m", "council"]


def run_council(*args: str, stdin: str | None = None, timeout: float = 90,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COUNCIL, *args], input=stdin if stdin is not None else "",
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})})


@pytest.fixture
def script_file(tmp_path: Path):
    """Write a ScriptedProvider script; its path is also a unique marker on the sidecar's command line."""
    def write(script: dict[str, Any]) -> str:
        path = tmp_path / f"script-{len(list(tmp_path.glob('script-*')))}.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        return str(path)
    return write


def processes_with(marker: str) -> list[int]:
    """PIDs whose command line contains ``marker`` (a /proc scan, no psutil)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(entry.name))
    return found


class PtySession:
    """A child process on a pseudo-terminal: its controlling tty, so \\x03 becomes SIGINT, as in a shell."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        argv = [*COUNCIL, *args]
        full_env = {**os.environ, "TERM": "xterm", **(env or {})}
        pid, fd = pty.fork()
        if pid == 0:  # child
            try:
                os.execve(argv[0], argv, full_env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = ""
        self.pos = 0
        self.status: int | None = None

    @property
    def text(self) -> str:
        return ANSI.sub("", self.output).replace("\r\n", "\n")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not chunk:
            return False
        self.output += chunk.decode("utf-8", errors="replace")
        return True

    def expect(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) appears after the previous match; fail with the output so far."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            m = regex.search(self.text, self.pos)
            if m:
                self.pos = m.end()
                return m
            if time.monotonic() > deadline or not self._read(min(0.2, max(0.0, deadline - time.monotonic()))):
                m = regex.search(self.text, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                raise AssertionError(f"{pattern!r} did not appear; output:\n{self.text}")

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self.status is None:
            self._read(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
            elif time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"the process did not exit; output:\n{self.text}")
        while self._read(0.05) and select.select([self.fd], [], [], 0)[0]:
            pass
        return self.status

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def close(self) -> None:
        if self.status is None:
            self.kill()
        os.close(self.fd)


@pytest.fixture
def pty_session():
    sessions: list[PtySession] = []

    def start(*args: str, env: dict[str, str] | None = None) -> PtySession:
        s = PtySession(list(args), env)
        sessions.append(s)
        return s

    yield start
    for s in sessions:
        s.close()
