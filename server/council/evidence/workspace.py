"""The workspace root as the evidence tools see it: where a path may lead, and which files are never shown.

A path is judged as asked and as resolved (every symlink followed): both must stay under the real root
(``outside_workspace``), look like no secret (``secret``: :func:`is_secret` by the name under the root, and
:func:`~council.evidence.credentials.credential_location` by where the file really is) and not be ignored by git
(``gitignored``); :meth:`Workspace.open` then opens what was judged (:mod:`council.evidence.opening`). Secret-looking
names are the ``SECRET_*`` tables, ``secrets.py`` too (CircuitPython keeps passwords in it; a real module so named would
shadow Python's ``secrets``); a name that only mentions secrets or credentials is not one when its suffix says source
code or docs (:data:`SOURCE_SUFFIXES`: ``secret_manager.py`` is code *about* secrets). A name that is not UTF-8 is
shown with U+FFFD in place of its bytes (``council.encodable``) and still leads back to its file.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from council.encodable import encodable
from council.evidence.credentials import credential_location
from council.evidence.ignore import ignorer_for
from council.evidence.opening import Opener
from council.session.state.grounds import Refusal

MAX_FILE_BYTES = 1_000_000
SNIFF_BYTES = 8000
MAX_SCANNED_ENTRIES = 10_000  # of one folder, looking for a name shown with U+FFFD
SECRET_FOLDERS = frozenset({".git", ".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".password-store",
                            "secrets", ".secrets", ".terraform.d"})
SECRET_PATHS = (".config/gh", ".config/gcloud", ".config/hub", ".config/op", ".config/rclone", ".config/doctl",
                ".config/heroku", ".m2/settings-security.xml", ".composer/auth.json")
SECRET_NAMES = (
    ".env", ".env.*", "*.env", ".envrc", ".netrc", "_netrc", ".authinfo", ".npmrc", ".yarnrc", ".yarnrc.yml",
    ".pypirc", ".pgpass", ".my.cnf", ".htpasswd", ".git-credentials", ".gitcookies", ".dockercfg", ".s3cfg",
    ".boto", ".vault-token", "*.token", "kubeconfig", "kubeconfig.*", "*.kubeconfig", ".terraformrc",
    "terraform.rc", "*.tfvars", "*.tfvars.json", "*.tfstate", "*.tfstate.*", "*.ovpn",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem", "*.key", "*.ppk", "*.p8", "*.pk8", "*.p12",
    "*.pkcs12", "*.pfx", "*.jks", "*.bks", "*.keystore", "*.keytab", "*.kdbx", "*.gpg", "*.asc",
    "*_history", ".histfile", ".zhistory", "secret", "secrets", "secret.*", "secrets.*", "*.secret", "*.secrets",
    "service-account*.json",
)
# Named for secrets or credentials: refused unless the suffix says source code or docs (SOURCE_SUFFIXES).
SECRET_WORDS = ("*[._-]secret", "*[._-]secrets", "*[._-]secret.*", "*[._-]secrets.*", "client_secret*",
                "credentials", "credentials*", "*[._-]credentials", "*[._-]credentials.*", "*credentials*.json")
SOURCE_SUFFIXES = frozenset({
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".go", ".rs", ".java", ".kt",
    ".kts", ".scala", ".rb", ".php", ".cs", ".fs", ".swift", ".c", ".h", ".cc", ".cpp", ".hpp", ".m", ".ex",
    ".exs", ".erl", ".clj", ".dart", ".lua", ".md", ".rst", ".adoc",
})


def is_secret(rel: str) -> bool:
    """Whether a workspace-relative path looks like it holds secrets (never read, searched or listed)."""
    parts = [p.lower() for p in rel.split("/") if p]
    if not parts:
        return False
    if any(p in SECRET_FOLDERS for p in parts):
        return True
    joined = "/" + "/".join(parts) + "/"
    if any(f"/{path}/" in joined for path in SECRET_PATHS):
        return True
    name = parts[-1]
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_NAMES):
        return True
    return os.path.splitext(name)[1] not in SOURCE_SUFFIXES and \
        any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_WORDS)


def resolved(path: str) -> str | None:
    """``path`` with every symlink followed, or None when that failed (a link swapped for a file meanwhile makes
    ``os.path.realpath`` raise)."""
    try:
        return os.path.realpath(path)
    except OSError:
        return None


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
        if "\0" in query:
            return "not_found"  # no file name holds a NUL
        asked = Path(query)
        candidate = os.path.normpath(asked if asked.is_absolute() else self.root / asked)
        if not self.inside(candidate):
            return "outside_workspace"
        if "\ufffd" in candidate and not os.path.lexists(candidate):
            candidate = self.undecoded(candidate) or candidate  # a name shown with U+FFFD for bytes that are not UTF-8
        real = resolved(candidate)
        if real is None:
            return "not_found"  # a link on the way changed while it was resolved
        if not self.inside(real):
            return "outside_workspace"  # a symlink that points out
        names = [self.relative(candidate), self.relative(real)]
        if any(is_secret(rel) for rel in names) or credential_location(candidate) or credential_location(real):
            return "secret"
        if not os.path.lexists(candidate) or not os.path.exists(real):
            return "not_found"
        if any(rel and self.ignored(rel, os.path.isdir(real)) for rel in names):
            return "gitignored"
        return Located(encodable(names[1]), Path(real))

    def open(self, found: Located) -> tuple[int, os.stat_result]:
        """A read-only descriptor of the file ``found`` (the caller closes it) and its ``fstat``: the file the check
        resolved, opened without following a link, or :class:`~council.evidence.opening.Refused`."""
        with Opener(self.root) as opener:
            return opener.open(self.relative(str(found.path)))

    def undecoded(self, candidate: str) -> str | None:
        """The real path ``candidate`` (under the root) names when its U+FFFD stand for bytes that are not UTF-8:
        each such part is the one entry of its folder shown that way (None when none or several are)."""
        path = str(self.root)
        for part in self.relative(candidate).split("/"):
            if "\ufffd" not in part or os.path.lexists(os.path.join(path, part)):
                path = os.path.join(path, part)
                continue
            try:
                with os.scandir(path) as entries:
                    first = itertools.islice(entries, MAX_SCANNED_ENTRIES)
                    same = [e.name for e in first if encodable(e.name) == part]
            except OSError:
                return None
            if len(same) != 1:
                return None
            path = os.path.join(path, same[0])
        return path

    def ignored(self, rel: str, is_dir: bool) -> bool:
        try:
            return self.ignorer.ignored(rel, is_dir)
        except OSError:
            return True  # when git cannot say, the file is not shown

    def files(self, deadline: float) -> Iterator[Located]:
        """Every file that may be searched or listed (not ignored, not secret, inside the root once resolved)."""
        for rel in self.ignorer.files(deadline):
            path = os.path.join(self.root, rel)
            if is_secret(rel) or credential_location(path):
                continue
            real = resolved(path)
            if real is None or not self.inside(real) or not os.path.isfile(real) or credential_location(real):
                continue
            if os.path.islink(path) and (is_secret(self.relative(real)) or self.ignored(self.relative(real), False)):
                continue
            yield Located(encodable(rel), Path(real))

    def overview(self, limit: int = 60) -> list[str]:
        """The root's entries an advisor may start from, folders with a trailing ``/``."""
        out: list[str] = []
        try:
            entries = sorted(os.scandir(self.root), key=lambda e: e.name.lower())
        except OSError:
            return out
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_secret(entry.name) or credential_location(entry.path) or self.ignored(entry.name, is_dir):
                continue
            if entry.is_symlink():  # shown only when what it points to may be shown
                real = resolved(entry.path)
                if real is None or not self.inside(real) or is_secret(self.relative(real)) or \
                        credential_location(real) or self.ignored(self.relative(real), os.path.isdir(real)):
                    continue
            out.append(encodable(entry.name) + ("/" if is_dir else ""))
            if len(out) >= limit:
                break
        return out
