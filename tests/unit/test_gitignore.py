"""The ``.gitignore`` parser used outside git repositories agrees with git itself.

The oracle is git: in a fresh repository with nothing tracked, ``git ls-files --others --exclude-standard`` lists
exactly the files git does not ignore; the parser must list the same ones for a tree that exercises the rules
(negation, folders only, anchoring, ``**``, character classes, escapes, nested files overriding their parents, and
no re-including a file inside an ignored folder).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from council.evidence.globs import Glob
from council.evidence.ignore import GitignoreRules, parse_rule

GITIGNORES = {
    "": "# a comment\n*.log\n!important.log\n/top.txt\nbuild/\ndocs/**/draft-*.md\n**/cache\n\\#hash.txt\n"
        "tmp[0-9].txt\nspaced.txt   \nvendor/\n!vendor/keep.txt\n",
    "pkg": "*.txt\n!readme.txt\nlocal/\n/anchored.md\n",
    "pkg/sub": "!notes.txt\n",
}
FILES = [
    "a.log", "important.log", "top.txt", "sub/top.txt", "build/out.js", "src/build/out.js", "docs/a/b/draft-1.md",
    "docs/draft-2.md", "docs/final.md", "x/cache/y.bin", "cache/z.bin", "#hash.txt", "tmp1.txt", "tmpx.txt",
    "spaced.txt", "vendor/lib.js", "vendor/keep.txt", "pkg/readme.txt", "pkg/other.txt", "pkg/local/f.md",
    "pkg/anchored.md", "pkg/deeper/anchored.md", "pkg/sub/notes.txt", "pkg/sub/more.txt", "src/main.py",
    "src/app.log", "README.md",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")
    for folder, text in GITIGNORES.items():
        (root / folder / ".gitignore").write_text(text, encoding="utf-8")
    return root


def git_sees(root: Path) -> set[str]:
    subprocess.run(["git", "init", "-q", "."], cwd=root, check=True, capture_output=True)
    out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=root, check=True,
                         capture_output=True).stdout.decode()
    return {p for p in out.split("\0") if p}


def test_the_parser_lists_exactly_the_files_git_does_not_ignore(tree: Path):
    ours = set(GitignoreRules(tree).files(time.monotonic() + 30))
    assert ours == git_sees(tree)


def test_some_verdicts_by_hand(tree: Path):
    rules = GitignoreRules(tree)
    assert rules.ignored("a.log", False) and not rules.ignored("important.log", False)
    assert rules.ignored("top.txt", False) and not rules.ignored("sub/top.txt", False)  # anchored to the root
    assert rules.ignored("src/build/out.js", False)  # a folder pattern at any depth
    assert rules.ignored("vendor/keep.txt", False)  # a parent folder is ignored: nothing inside comes back
    assert not rules.ignored("pkg/sub/notes.txt", False) and rules.ignored("pkg/sub/more.txt", False)
    assert rules.ignored(".git/config", False)


@pytest.mark.parametrize("pattern, path, matches", [
    ("*.py", "a.py", True), ("*.py", "a/b.py", False), ("**/*.py", "a/b/c.py", True), ("**/*.py", "c.py", True),
    ("a/**", "a/b/c", True), ("a/**", "a", False), ("a/**/z", "a/z", True), ("a/**/z", "a/b/c/z", True),
    ("?.md", "x.md", True), ("?.md", "/.md", False), ("[ab].txt", "b.txt", True), ("[!ab].txt", "b.txt", False),
    ("\\*.txt", "*.txt", True), ("\\*.txt", "a.txt", False), ("a**b", "axxb", True),
])
def test_globs(pattern: str, path: str, matches: bool):
    assert Glob(pattern).match(path) is matches


def test_lines_that_are_not_rules():
    assert parse_rule("") is None and parse_rule("# comment") is None and parse_rule("   ") is None
    assert parse_rule("!") is None and parse_rule("/") is None
    negated = parse_rule("!keep.log")
    assert negated is not None and negated.negate
    folder = parse_rule("out/")
    assert folder is not None and folder.dir_only and folder.matches("out", True) and not folder.matches("out", False)


CLASSES = "*a*a*a*a*a*a*a*a*a*a*b\n[[:digit:]]x.txt\n[]]b.txt\n[!a-c]c.txt\ny[\\]]z.txt\nq[\\!]w.txt\nk[a-]m.txt\n"
CLASS_FILES = ["a" * 36, "xaaaaaaaaaab", "1x.txt", "ax.txt", "]b.txt", "bb.txt", "dc.txt", "ac.txt", "y]z.txt",
               "y\\z.txt", "q!w.txt", "q\\w.txt", "k-m.txt", "kam.txt", "kbm.txt"]


def test_classes_and_a_pathological_rule_agree_with_git_and_match_promptly(tmp_path: Path):
    """POSIX classes, ``]`` first, escapes and a trailing ``-`` in a class as git reads them; and a rule that made
    the old regex translation backtrack for seconds on a long name is matched at once."""
    root = tmp_path / "classes"
    root.mkdir()
    for name in CLASS_FILES:
        (root / name).write_text("x\n", encoding="utf-8")
    (root / ".gitignore").write_text(CLASSES, encoding="utf-8")
    started = time.monotonic()
    ours = set(GitignoreRules(root).files(time.monotonic() + 30))
    assert time.monotonic() - started < 1.0
    assert ours == git_sees(root)
    assert "a" * 36 in ours and "xaaaaaaaaaab" not in ours and "kbm.txt" in ours and "k-m.txt" not in ours
