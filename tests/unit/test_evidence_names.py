"""Which file names the evidence tools treat as secrets (a table: refused vs shown), and file names that are not
UTF-8: shown with U+FFFD, encodable as JSON, and read back by the name as shown.

The tools run on real folders, in a plain folder and in a git repository (git lists the files there).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from council.evidence import WorkspaceTools
from council.evidence.workspace import is_secret

NEEDLE = "NEEDLE-7f3a"

SECRET_FILES = [  # each holds NEEDLE; none may be read, searched or listed
    "deploy.ppk", "AuthKey_ABC.p8", "secrets/db.yaml", ".secrets/token.txt", ".config/gh/hosts.yml",
    ".config/gcloud/application_default.json", ".vault-token", ".s3cfg", ".boto", "kubeconfig", "prod.kubeconfig",
    ".bash_history", ".zsh_history", ".python_history", ".histfile", ".yarnrc.yml", ".yarnrc", "cert.p12",
    "cert.pfx", "release.jks", "app.keystore", "vault.kdbx", "keys/id_ed25519", "keys/id_rsa.pub", ".git-credentials",
    ".gitcookies", ".dockercfg", "credentials", "credentials.toml", "prod.credentials.json", "client_secret_123.json",
    "db-secrets.yaml", "app.secret", "secrets.yaml", "secrets.py", "src/secrets.py", ".terraformrc", "terraform.rc",
    "infra/prod.tfvars", "infra/terraform.tfstate.backup", ".terraform.d/credentials.tfrc.json", ".my.cnf",
    ".npmrc", ".netrc", ".pgpass", "service.keytab", "api.token", ".ENV", "config/.env.local",
]
SHOWN_FILES = [  # ordinary files whose names merely mention secrets or credentials
    "src/secret_manager.py", "src/credentials.ts", "src/aws_credentials.go", "tests/test_secrets.py",
    "docs/secrets-handling.md", "src/history.py", "docs/keys.md", "src/token_bucket.py", "config/settings.yaml",
    "src/config/gh_client.py",
]


def build(base: Path, git: bool) -> Path:
    root = base / "ws"
    for rel in SECRET_FILES + SHOWN_FILES:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"value = '{NEEDLE}'\n", encoding="utf-8")
    if git:
        subprocess.run(["git", "init", "-q", "."], cwd=root, check=True, capture_output=True)
    return root


@pytest.fixture(params=["plain", "git"])
def names_root(tmp_path: Path, request) -> Path:
    return build(tmp_path, git=request.param == "git")


def run(tools: WorkspaceTools, tool: str, query: str, regex: bool = False):
    return anyio.run(tools.run, tool, query, regex)


@pytest.mark.parametrize("rel", SECRET_FILES)
def test_secret_looking_names_are_secrets(rel: str):
    assert is_secret(rel)


@pytest.mark.parametrize("rel", SHOWN_FILES)
def test_ordinary_files_that_mention_secrets_are_shown(rel: str):
    assert not is_secret(rel)


def test_secret_files_are_never_read_searched_or_listed(names_root: Path):
    tools = WorkspaceTools(names_root)
    for rel in SECRET_FILES:
        refused = run(tools, "read_file", rel)
        assert not refused.ok and refused.refusal == "secret", rel
    search = run(tools, "search_code", NEEDLE)
    assert sorted(search.files) == sorted(SHOWN_FILES) and search.count == len(SHOWN_FILES)
    listing = run(tools, "list_files", "**")
    assert sorted(listing.text.splitlines()[1:]) == sorted(SHOWN_FILES)
    assert all(run(tools, "read_file", rel).ok for rel in SHOWN_FILES)
    overview = set(anyio.run(tools.overview))
    assert {"config/", "docs/", "src/", "tests/", ".config/", "keys/", "infra/"} <= overview
    assert not overview & {*(rel for rel in SECRET_FILES if "/" not in rel), "secrets/", ".secrets/", ".terraform.d/"}


@pytest.fixture(params=["plain", "git"])
def latin1_root(tmp_path: Path, request) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "src.py").write_text("x = 1\n", encoding="utf-8")
    with open(os.fsencode(root) + b"/docs/caf\xe9.md", "wb") as f:
        f.write(f"{NEEDLE} in a latin-1 named file\n".encode())
    with open(os.fsencode(root) + b"/r\xe9sum\xe9.txt", "wb") as f:
        f.write(b"top level\n")
    if request.param == "git":
        subprocess.run(["git", "init", "-q", "."], cwd=root, check=True, capture_output=True)
    return root


def test_names_that_are_not_utf8_are_shown_with_replacement_characters_and_read_back(latin1_root: Path):
    tools = WorkspaceTools(latin1_root)
    listing = run(tools, "list_files", "**")
    search = run(tools, "search_code", NEEDLE)
    assert "docs/caf\ufffd.md" in listing.text.splitlines() and search.files == ["docs/caf\ufffd.md"]
    assert search.uris == [(latin1_root / os.fsdecode(b"docs/caf\xe9.md")).as_uri()] and "%E9" in search.uris[0]
    for result in (listing, search):
        json.dumps(result.to_wire(), ensure_ascii=False).encode("utf-8")  # raised UnicodeEncodeError before
        result.model_dump_json()
    read = run(tools, "read_file", "docs/caf\ufffd.md")
    assert read.ok and NEEDLE in read.text and read.files == ["docs/caf\ufffd.md"]
    assert "r\ufffdsum\ufffd.txt" in anyio.run(tools.overview)
    assert run(tools, "read_file", "r\ufffdsum\ufffd.txt").ok
    assert run(tools, "read_file", "docs/caf\ufffd\ufffd.md").refusal == "not_found"


def test_a_query_with_a_nul_byte_is_not_found(latin1_root: Path):
    assert run(WorkspaceTools(latin1_root), "read_file", "src.py\x00").refusal == "not_found"
