"""The workspace root as the evidence tools see it: where a path may lead, and which files are never shown.

A path is judged twice, as asked and as resolved (``os.path.realpath``: every symlink followed): both must stay
under the real root (so ``..``, an absolute path elsewhere and a symlink that points out are refused as
``outside_workspace``), neither may look like a secret (``.env*``, key and certificate files, credentials, anything
under ``.git``, ``.ssh``, ``.aws`` …: ``secret``), and neither may be ignored by git (``gitignored``). Files over
1 MB (``too_large``) and binaries (a NUL byte in the first 8 KB: ``binary``) are refused when read.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from council.evidence.ignore import ignorer_for
from council.session.grounds import Refusal

MAX_FILE_BYTES = 1_000_000
SNIFF_BYTES = 8000
SECRET_FOLDERS = frozenset({".git", ".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".password-store"})
SECRET_NAMES = (
    ".env", ".env.*", "*.env", ".envrc", ".netrc", "_netrc", ".npmrc", ".pypirc", ".pgpass", ".htpasswd",
    ".git-credentials", ".dockercfg", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem", "*.key", "*.p12",
    "*.pfx", "*.jks", "*.keystore", "*.kdbx", "*.gpg", "*.asc", "credentials", "credentials.*", "*credentials*.json",
    "secrets.*", "*.secret", "*.secrets", "service-account*.json", "*.tfvars", "*.tfstate", "*.ovpn",
)


def is_secret(rel: str) -> bool:
    """Whether a workspace-relative path looks like it holds secrets (never read, searched or listed)."""
    parts = [p.lower() for p in rel.split("/") if p]
    if any(p in SECRET_FOLDERS for p in parts[:-1]) or (parts and parts[-1] in SECRET_FOLDERS):
        return True
    return bool(parts) and any(fnmatch.fnmatchcase(parts[-1], pattern) for pattern in SECRET_NAMES)


def is_binary(head: bytes) -> bool:
    return b"\0" in head[:SNIFF_BYTES]


@dataclass(frozen=True)
class Located:
    """A path that may be shown: relative to the root (resolved), and the real file."""

    rel: str
    path: Path


class Workspace:
    """The real root of the workspace and what may be read under it."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self.ignorer = ignorer_for(self.root)

    def inside(self, path: str) -> bool:
        return path == str(self.root) or path.startswith(str(self.root).rstrip(os.sep) + os.sep)

    def relative(self, path: str) -> str:
        rel = os.path.relpath(path, self.root).replace(os.sep, "/")
        return "" if rel == "." else rel

    def locate(self, query: str) -> Located | Refusal:
        """Where ``query`` (relative to the root, or absolute inside it) really leads, or why it may not be read."""
        asked = Path(query)
        candidate = os.path.normpath(asked if asked.is_absolute() else self.root / asked)
        if not self.inside(candidate):
            return "outside_workspace"
        real = os.path.realpath(candidate)
        if not self.inside(real):
            return "outside_workspace"  # a symlink that points out
        names = [self.relative(candidate), self.relative(real)]
        if any(is_secret(rel) for rel in names):
            return "secret"
        if not os.path.lexists(candidate) or not os.path.exists(real):
            return "not_found"
        if any(rel and self.ignored(rel, os.path.isdir(real)) for rel in names):
            return "gitignored"
        return Located(names[1], Path(real))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        try:
            return self.ignorer.ignored(rel, is_dir)
        except OSError:
            return True  # when git cannot say, the file is not shown

    def files(self, deadline: float) -> Iterator[Located]:
        """Every file that may be searched or listed (not ignored, not secret, inside the root once resolved)."""
        for rel in self.ignorer.files(deadline):
            if is_secret(rel):
                continue
            path = os.path.join(self.root, rel)
            real = os.path.realpath(path)
            if not self.inside(real) or not os.path.isfile(real):
                continue
            if os.path.islink(path) and (is_secret(self.relative(real)) or self.ignored(self.relative(real), False)):
                continue
            yield Located(rel, Path(real))

    def overview(self, limit: int = 60) -> list[str]:
        """The root's entries an advisor may start from, folders with a trailing ``/``."""
        out: list[str] = []
        try:
            entries = sorted(os.scandir(self.root), key=lambda e: e.name.lower())
        except OSError:
            return out
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_secret(entry.name) or self.ignored(entry.name, is_dir):
                continue
            if entry.is_symlink():  # shown only when what it points to may be shown
                real = os.path.realpath(entry.path)
                if not self.inside(real) or is_secret(self.relative(real)) or \
                        self.ignored(self.relative(real), os.path.isdir(real)):
                    continue
            out.append(entry.name + ("/" if is_dir else ""))
            if len(out) >= limit:
                break
        return out
