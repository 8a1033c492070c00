"""Which workspace files git would ignore: ``git`` itself in a repository, else the ``.gitignore`` files parsed here.

In a git work tree, ``git ls-files --cached --others --exclude-standard`` lists the files not ignored (so
``.git/info/exclude`` and the global excludes count) and ``git check-ignore`` judges one path; git runs with
``core.fsmonitor`` off, so a hostile repository config cannot run a command through it. Elsewhere
:class:`GitignoreRules` applies every ``.gitignore`` from the root down with git's rules (deeper files override; a file
in an ignored folder stays ignored), matched in linear time (:mod:`council.evidence.globs`): a hostile ``.gitignore``
cannot stall the sidecar. ``.git`` is always skipped.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from council.evidence.globs import Glob, GlobError

GIT = ["git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"]
GIT_SECONDS = 10.0
MAX_GITIGNORE_BYTES = 256_000


@dataclass(frozen=True)
class Rule:
    glob: Glob
    negate: bool
    dir_only: bool

    def matches(self, rel: str, is_dir: bool) -> bool:
        return (is_dir or not self.dir_only) and self.glob.match(rel)


def parse_rule(line: str) -> Rule | None:
    """One ``.gitignore`` line as a rule (None: blank, a comment, or a pattern that cannot match)."""
    line = line.rstrip("\n\r")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    try:
        glob = Glob(line.lstrip("/"), anchored="/" in line)
    except GlobError:
        return None
    return Rule(glob, negate, dir_only)


class GitignoreRules:
    """The ``.gitignore`` files under ``root``, read on demand."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._judged: dict[tuple[str, bool], bool] = {}

    @lru_cache(maxsize=4096)  # noqa: B019 - one instance per workspace, kept for the sidecar's life
    def _rules(self, folder: str) -> tuple[Rule, ...]:
        path = self.root / folder / ".gitignore"
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_GITIGNORE_BYTES:
                return ()
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ()
        return tuple(rule for rule in map(parse_rule, lines) if rule is not None)

    def _matched(self, rel: str, is_dir: bool) -> bool:
        key = (rel, is_dir)
        if key not in self._judged:
            parts = rel.split("/")
            verdict = False
            for depth in range(len(parts)):  # root first: deeper files override, the last matching rule wins
                folder = "/".join(parts[:depth])
                local = "/".join(parts[depth:])
                for rule in self._rules(folder):
                    if rule.matches(local, is_dir):
                        verdict = not rule.negate
            if len(self._judged) > 100_000:
                self._judged.clear()
            self._judged[key] = verdict
        return self._judged[key]

    def ignored(self, rel: str, is_dir: bool) -> bool:
        parts = rel.split("/")
        if ".git" in parts:
            return True
        for depth in range(1, len(parts) + 1):  # inside an ignored folder nothing comes back
            if self._matched("/".join(parts[:depth]), depth < len(parts) or is_dir):
                return True
        return False

    def files(self, deadline: float) -> Iterator[str]:
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            if time.monotonic() > deadline:
                return
            base = os.path.relpath(folder, self.root).replace(os.sep, "/")
            base = "" if base == "." else base + "/"
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d))
                             and not self.ignored(base + d, True))
            for name in sorted(names):
                if not self.ignored(base + name, False):
                    yield base + name


class GitRepository:
    """git's own view of what is ignored, for a workspace inside a git work tree."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _git(self, *args: str, timeout: float = GIT_SECONDS) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*GIT, "-C", str(self.root), *args], capture_output=True, timeout=timeout,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"},
                              stdin=subprocess.DEVNULL, check=False)

    @classmethod
    def open(cls, root: Path) -> GitRepository | None:
        """The repository ``root`` is in, or None (not a work tree, no git, or git refuses it)."""
        repo = cls(root)
        try:
            done = repo._git("rev-parse", "--is-inside-work-tree", timeout=5)
        except (OSError, subprocess.SubprocessError):
            return None
        return repo if done.returncode == 0 and done.stdout.strip() == b"true" else None

    def ignored(self, rel: str, is_dir: bool) -> bool:
        if ".git" in rel.split("/"):
            return True
        done = self._git("check-ignore", "-q", "--", rel + ("/" if is_dir else ""))
        if done.returncode not in (0, 1):
            raise OSError(f"git check-ignore failed ({done.returncode})")
        return done.returncode == 0

    def files(self, deadline: float) -> Iterator[str]:
        timeout = max(1.0, deadline - time.monotonic())
        done = self._git("ls-files", "--cached", "--others", "--exclude-standard", "-z", timeout=timeout)
        if done.returncode != 0:
            raise OSError(f"git ls-files failed ({done.returncode})")
        for raw in sorted(set(done.stdout.split(b"\0"))):
            if raw:
                yield raw.decode("utf-8", errors="surrogateescape")


def ignorer_for(root: Path) -> GitRepository | GitignoreRules:
    """git's view when ``root`` is in a git work tree, else the parsed ``.gitignore`` files."""
    return GitRepository.open(root) or GitignoreRules(root)
