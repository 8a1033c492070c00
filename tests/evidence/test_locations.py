"""Credentials judged by location: the roots that are home or system folders (refused unless the user allows
them, and then said in one line), and the files where developer tools and the system keep credentials."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from council.cli import serve
from council.cli.ask_args import check_usage, serve_args
from council.cli.main import parser
from council.evidence import WorkspaceTools
from council.evidence.credentials import credential_location, root_refusal
from council.evidence.tools import RootRefused, workspace_tools
from council.present.status import note
from council.words import speaking


@pytest.mark.parametrize("root, why", [
    ("/", "system"), ("/etc", "system"), ("/etc/ssh", "system"), ("/usr", "system"), ("/var", "system"),
    ("/proc", "system"), ("/proc/self", "system"), ("/sys", "system"), ("/dev", "system"), ("/boot", "system"),
    ("/home", "system"), ("/var/lib", "system"), ("/root", "home"), ("/home/someone", "home"),
    ("/Users/someone", "home"), ("/usr/src/app", None), ("/srv/site", None), ("/home/someone/project", None),
])
def test_home_and_system_roots_are_refused(root: str, why: str | None):
    assert root_refusal(root) == why


def test_the_users_own_home_is_a_home_wherever_it_is(tmp_path: Path, monkeypatch):
    home = tmp_path / "me"
    (home / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert root_refusal(home) == "home" and root_refusal(tmp_path) == "system"  # the folder that holds it too
    assert root_refusal(home / "project") is None
    link = tmp_path / "link"
    os.symlink(home, link)
    assert root_refusal(link) == "home"  # judged where it really is


@pytest.mark.parametrize("path", [
    "/home/u/.config/github-copilot/hosts.json", "/home/u/.config/github-copilot/apps.json",
    "/home/u/.codex/auth.json", "/home/u/.docker/config.json", "/home/u/.config/containers/auth.json",
    "/run/user/1000/containers/auth.json", "/home/u/.cache/huggingface/token", "/home/u/.huggingface/token",
    "/home/u/.local/share/keyrings/login.keyring", "/home/u/.mozilla/firefox/x.default/logins.json",
    "/home/u/Library/Application Support/Firefox/Profiles/x/key4.db", "/home/u/.aws/credentials",
    "/home/u/.config/gh/hosts.yml", "/home/u/.kube/config", "/home/u/.gnupg/pubring.kbx",
    "/home/u/.claude/.credentials.json", "/home/u/.gemini/oauth_creds.json",
    "/home/u/.config/gcloud/credentials.db", "/home/u/.azure/msal_token_cache.json", "/home/u/.ssh/config",
    "/etc/shadow", "/etc/gshadow-", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssl/private/server.key",
    "/proc/self/environ", "/run/secrets/db", "/var/run/secrets/kubernetes.io/serviceaccount/token",
    "/home/u/.config/google-chrome/Default/Login Data", "/home/u/.m2/settings.xml", "/home/u/.claude.json",
])
def test_credential_files_are_recognised_by_location(path: str):
    assert credential_location(path)


@pytest.mark.parametrize("path", ["/home/u/project/src/auth.py", "/home/u/project/docs/tokens.md",
                                  "/home/u/.config/nvim/init.lua", "/home/u/.bashrc", "/srv/app/etc/shadow.py",
                                  "/home/u/project/docker/config.json", "/home/u/.claude/settings.json"])
def test_ordinary_files_are_not_credential_locations(path: str):
    assert not credential_location(path)


def test_with_a_root_of_slash_allowed_system_secrets_are_still_refused():
    tools, refused = workspace_tools(Path("/"), any_root=True)
    assert refused is None and isinstance(tools, WorkspaceTools)
    for query in ("etc/shadow", "/etc/shadow", "proc/self/environ", "/proc/1/environ", "etc/gshadow"):
        result = anyio.run(tools.run, "read_file", query, False)
        assert result.refusal == "secret", (query, result)
    assert anyio.run(tools.run, "read_file", "etc/hostname", False).refusal != "secret"


def test_without_the_opt_in_a_home_root_gets_no_tools_and_says_why(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert workspace_tools(tmp_path) == (None, RootRefused(str(tmp_path), "home"))
    assert workspace_tools(Path("/etc")) == (None, RootRefused("/etc", "system"))
    assert isinstance(workspace_tools(tmp_path, any_root=True)[0], WorkspaceTools)
    assert workspace_tools(None) == (None, None)
    for lang, words in (("en", "is a home folder"), ("ru", "домашняя папка")):
        with speaking(lang):
            line = note("evidence_refused", {"folder": str(tmp_path), "why": "home"})
        assert words in line and "--evidence-any-root" in line and "\n" not in line


def test_the_opt_in_is_a_flag_of_every_command_and_a_config_key(tmp_path: Path):
    def config(*argv: str):
        return serve.build_config(parser().parse_args(list(argv)))

    assert not config("serve", "--workspace", str(tmp_path)).evidence_any_root
    assert config("serve", "--workspace", str(tmp_path), "--evidence-any-root").evidence_any_root
    assert config("mcp", "--evidence-any-root").evidence_any_root
    file = tmp_path / "council.toml"
    file.write_text("evidence_any_root = true\n", encoding="utf-8")
    assert config("serve", "--config", str(file)).evidence_any_root
    ask = parser().parse_args(["ask", "--workspace", str(tmp_path), "--evidence-any-root", "q"])
    assert "--evidence-any-root" in serve_args(ask) and check_usage(ask) is None
    alone = parser().parse_args(["ask", "--evidence-any-root", "q"])
    assert check_usage(alone) == "--evidence-any-root needs --workspace"


def test_a_home_folder_an_mcp_client_shares_as_its_root_is_not_read(tmp_path: Path, monkeypatch):
    from council.cli import mcp

    monkeypatch.setenv("HOME", str(tmp_path))
    for argv, refused in ((["mcp"], True), (["mcp", "--evidence-any-root"], False)):
        config = mcp.build_config(parser().parse_args(argv), str(tmp_path))
        assert config.evidence_root == tmp_path.resolve()
        tools, why = workspace_tools(config.evidence_root, any_root=config.evidence_any_root)
        assert (tools is None, why is not None) == (refused, refused)
