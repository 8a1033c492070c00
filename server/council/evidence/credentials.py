"""Where credentials live, judged by location: which workspace roots the evidence tools refuse (home and system
folders, unless the user allows them) and which files are credential files wherever the root is.

:func:`root_refusal` says why a root may not be read: ``home`` (a user's home folder: ``$HOME``, ``/root``, a folder
of ``/home`` or ``/Users``, a login account's home) or ``system`` (``/``, a folder holding home folders, ``/usr``,
``/var`` …, or anything at or under ``/etc``, ``/proc``, ``/sys``, ``/dev``, ``/boot``, ``/run``). A project *inside*
a home folder is a workspace like any other. :func:`credential_location` judges a file by its absolute path against
:data:`CREDENTIAL_LOCATIONS`: globs of where common developer tools keep tokens and keys (matched case-insensitively,
segment by segment with ``fnmatch``, at any depth unless the glob starts with ``/``; one ending in ``/`` is a folder and
everything in it). The file-name rules of :mod:`council.evidence.workspace` judge paths relative to the root; these
judge where a file really is, so a root of ``~/.config`` does not make ``github-copilot/hosts.json`` look harmless.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

CREDENTIAL_LOCATIONS = (
    # shells, keys and keychains
    ".ssh/", ".gnupg/", ".password-store/", ".pki/", ".local/share/keyrings/", ".local/share/kwalletd/",
    "library/keychains/", ".config/age/", ".config/sops/", ".viminfo", ".lesshst",
    # cloud and container command lines
    ".aws/", ".azure/", ".kube/", ".docker/", ".config/gcloud/", ".config/containers/auth.json",
    "containers/auth.json", ".config/doctl/", ".config/hcloud/", ".config/heroku/", ".oci/", ".bluemix/",
    ".config/rclone/", ".mc/", ".passwd-s3fs", ".kaggle/", ".config/ngrok/", ".ngrok2/", ".terraform.d/",
    ".config/op/", ".config/hub", ".config/gh/", ".config/glab-cli/", ".config/configstore/",
    ".local/share/com.vercel.cli/", ".netlify/", ".wrangler/", ".config/.wrangler/",
    # developer tools and package registries
    ".config/github-copilot/", "github copilot/", ".codex/", ".claude/.credentials.json", ".claude.json",
    ".gemini/oauth_creds.json", ".gemini/google_accounts.json", ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens", ".huggingface/token", ".m2/settings.xml", ".m2/settings-security.xml",
    ".gradle/gradle.properties", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
    ".composer/auth.json", ".config/composer/auth.json", ".subversion/auth/", ".mylogin.cnf",
    # browsers and mail
    ".mozilla/", ".thunderbird/", "library/application support/firefox/", ".config/google-chrome/",
    ".config/chromium/", ".config/bravesoftware/", ".config/microsoft-edge/", "library/application support/google/",
    "logins.json", "key3.db", "key4.db", "signons.sqlite", "login data", "cookies", "cookies.sqlite",
    # the system (with a root of / allowed)
    "/etc/shadow*", "/etc/gshadow*", "/etc/sudoers*", "/etc/ssh/ssh_host_*", "/etc/ssl/private/",
    "/etc/pki/", "/etc/letsencrypt/", "/etc/networkmanager/system-connections/", "/etc/wpa_supplicant/",
    "/etc/security/opasswd", "/proc/", "/sys/", "/dev/", "/run/", "/var/run/", "/var/lib/",
    "/private/etc/master.passwd", "/private/var/db/",
)

HOME_PARENTS = ("/home", "/Users")  # each folder in them is someone's home
SYSTEM_FOLDERS = frozenset({  # refused as the root itself (a project below them is fine: /usr/src/app, /srv/site)
    "/", "/usr", "/usr/local", "/var", "/opt", "/srv", "/mnt", "/media", "/bin", "/sbin", "/lib", "/lib32",
    "/lib64", "/libx32", "/snap", "/nix", "/tmp", "/var/tmp", "/private", "/private/var", "/private/tmp",
    "/System", "/Library", "/Applications", "/Volumes", "/cores",
})
SYSTEM_TREES = ("/etc", "/proc", "/sys", "/dev", "/boot", "/run", "/var/lib", "/var/log", "/var/run", "/var/spool",
                "/var/mail", "/var/backups", "/var/cache", "/private/etc", "/private/var/db", "/private/var/root")
FIRST_LOGIN_UID = 1000  # below: system accounts (their "homes" are /var/www, /nonexistent …)

Why = Literal["home", "system"]


@dataclass(frozen=True)
class Location:
    """One entry of :data:`CREDENTIAL_LOCATIONS` cut into segments."""

    parts: tuple[str, ...]
    folder: bool  # everything under it (and the folder itself)
    anchored: bool  # from the filesystem root only

    @classmethod
    def of(cls, glob: str) -> Location:
        return cls(tuple(p for p in glob.split("/") if p), glob.endswith("/"), glob.startswith("/"))

    def matches(self, parts: list[str]) -> bool:
        width = len(self.parts)
        starts = [0] if self.anchored else range(len(parts) - width + 1)
        for start in starts:
            window = parts[start:start + width]
            if len(window) == width and (self.folder or start + width == len(parts)) and \
                    all(fnmatch.fnmatchcase(name, glob) for name, glob in zip(window, self.parts, strict=True)):
                return True
        return False


LOCATIONS = tuple(Location.of(glob) for glob in CREDENTIAL_LOCATIONS)
_BY_FIRST: dict[str, list[Location]] = {}
for _location in LOCATIONS:  # the first segment is literal in all but a few: a path looks up only its own names
    if not _location.anchored and not any(c in _location.parts[0] for c in "*?["):
        _BY_FIRST.setdefault(_location.parts[0], []).append(_location)
_ALWAYS = [loc for loc in LOCATIONS if loc.anchored or any(c in loc.parts[0] for c in "*?[")]


def credential_location(path: str | os.PathLike[str]) -> bool:
    """Whether the absolute ``path`` lies where a developer tool or the system keeps credentials."""
    parts = [p.lower() for p in os.fspath(path).replace("\\", "/").split("/") if p]
    candidates = [loc for name in set(parts) for loc in _BY_FIRST.get(name, ())]
    return any(loc.matches(parts) for loc in (*candidates, *_ALWAYS))


def _real(path: str | os.PathLike[str]) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def home_folders() -> frozenset[str]:
    """Every home folder this machine names: the user's, root's, and each login account's."""
    found = {os.path.expanduser("~"), os.environ.get("HOME", ""), os.environ.get("USERPROFILE", ""), "/root",
             "/var/root"}
    try:
        import pwd

        found.update(e.pw_dir for e in pwd.getpwall() if e.pw_uid == 0 or e.pw_uid >= FIRST_LOGIN_UID)
    except (ImportError, OSError):
        pass
    return frozenset(_real(f) for f in found if f and os.path.isabs(f))


def root_refusal(root: str | os.PathLike[str]) -> Why | None:
    """Why the evidence tools may not read ``root`` unless the user allows it (None: they may)."""
    real = _real(root)
    path, homes = Path(real), home_folders()
    if real in homes or str(path.parent) in HOME_PARENTS:
        return "home"
    if real in SYSTEM_FOLDERS or path.parent == path or real in HOME_PARENTS:
        return "system"
    if any(real == tree or real.startswith(tree + "/") for tree in SYSTEM_TREES):
        return "system"
    inside = real.rstrip(os.sep) + os.sep
    if any(home.startswith(inside) for home in homes):  # a folder that holds someone's home
        return "system"
    return None
