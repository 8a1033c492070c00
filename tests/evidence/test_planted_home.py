"""The evidence tools on a planted home folder (allowed with ``--evidence-any-root``): every credential file of the
common developer tools is refused by its location, every secret in a file that is read is redacted, and no read,
search or listing returns a planted secret value."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from council.evidence import WorkspaceTools

from .planted_home import PLAN, Planted, plant_home, secrets_of

# What a model could ask for to find the secrets: their prefixes, their words, their shapes, and each value itself.
SEARCHES = [*((word, False) for word in ("ghu_", "ghp_", "gho_", "sk-", "hf_", "AIza", "AKIA", "xoxb", "npm_",
                                         "pypi-", "ya29", "PRIVATE KEY", "password", "token", "auth", "secret",
                                         "export", "$6$", "@git")),
            (r"[A-Za-z0-9+/_\-]{20,}", True), (".", True), (r"ghp_[A-M]", True), (r"^[A-Za-z0-9+/]{64}$", True)]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> tuple[Path, list[Planted]]:
    root = tmp_path_factory.mktemp("home")
    return root, plant_home(root)


def run(tools: WorkspaceTools, tool: str, query: str, regex: bool = False):
    return anyio.run(tools.run, tool, query, regex)


def leaked(text: str, planted: list[Planted]) -> list[str]:
    return [s for s in secrets_of(planted) if s in text]


def test_each_credential_file_is_refused_by_location_or_read_with_its_secrets_redacted(home):
    root, planted = home
    tools = WorkspaceTools(root)
    outcomes = {}
    for p in planted:
        result = run(tools, "read_file", p.path)
        assert leaked(result.model_dump_json(), planted) == [], p.path
        outcomes[p.path] = "location" if result.refusal == "secret" else \
            "content" if result.ok and "[redacted: " in result.text else f"{result.refusal}: {result.text[:80]}"
    assert outcomes == {p.path: p.outcome for p in planted}
    assert PLAN in run(tools, "read_file", "notes/plan.md").text  # the tools do read what is not a secret


@pytest.mark.parametrize("query, regex", SEARCHES + [(s, False) for s in ("correcthorse", "Sup3r-S3cret")])
def test_no_search_finds_or_probes_a_secret(home, query: str, regex: bool):
    root, planted = home
    result = run(WorkspaceTools(root), "search_code", query, regex)
    assert result.ok, result
    assert leaked(result.model_dump_json(), planted) == []
    assert not any(p.outcome == "location" and p.path in result.files for p in planted)


def test_searching_for_each_secret_value_finds_nothing(home):
    root, planted = home
    tools = WorkspaceTools(root)
    found = {s: run(tools, "search_code", s).count for s in secrets_of(planted)}
    assert {s: n for s, n in found.items() if n} == {}


@pytest.mark.parametrize("glob", ["**", ".*", ".config/**", "**/*.json", ".mozilla", "backup"])
def test_listings_show_no_credential_file(home, glob: str):
    root, planted = home
    result = run(WorkspaceTools(root), "list_files", glob)
    listed = set(result.text.splitlines()[1:])
    assert not listed & {p.path for p in planted if p.outcome == "location"}
    assert leaked(result.text, planted) == []


def test_the_overview_names_no_credential_folder(home):
    root, _ = home
    overview = anyio.run(WorkspaceTools(root).overview)
    assert "notes/" in overview and ".bashrc" in overview
    assert not {".ssh/", ".aws/", ".codex/", ".mozilla/", ".kube/", ".gnupg/", ".azure/", ".docker/", ".netrc",
                ".npmrc", ".pypirc", ".git-credentials", ".env"} & set(overview)


def test_a_root_inside_a_credential_folder_reads_nothing_there(home):
    """A root of ``~/.config`` does not make ``github-copilot/hosts.json`` a harmless name."""
    root, planted = home
    for folder, rel in ((".config", "github-copilot/hosts.json"), (".config", "gh/hosts.yml"),
                        (".mozilla/firefox", "abcd1234.default-release/logins.json"), (".codex", "auth.json")):
        tools = WorkspaceTools(root / folder)
        assert run(tools, "read_file", rel).refusal == "secret", (folder, rel)
        assert leaked(run(tools, "search_code", ".", True).text, planted) == []
        assert run(tools, "list_files", "**").count == 0 or folder == ".config"
