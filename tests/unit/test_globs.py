"""The linear-time glob matcher agrees with the glob's definition, written here as a plain recursive matcher
(exponential, so only for short random cases): ``*`` and ``?`` and classes within one segment, a whole ``**``
segment across folders (trailing: anything below), an unanchored glob starting in any folder."""

from __future__ import annotations

import random

import pytest

from council.evidence.globs import Glob, GlobError

PIECES = ["a", "b", ".", "/", "*", "**", "?", "[ab]", "[!a]", "[a-b]", "\\*"]


def reference(p: str, s: str, segment_start: bool = True) -> bool:
    """Whether glob ``p`` matches all of ``s``, by the definition (tries every split)."""
    if not p:
        return not s
    if segment_start and p == "**":
        return True
    if segment_start and p.startswith("**/"):
        return any(reference(p[3:], s[i:]) for i in range(len(s) + 1) if i == 0 or s[i - 1] == "/")
    if p[0] == "*":
        rest = p.lstrip("*")
        return any(reference(rest, s[i:], False) for i in range(len(s) + 1) if "/" not in s[:i])
    if p[0] == "/":
        return s[:1] == "/" and reference(p[1:], s[1:], True)
    if not s or s[0] == "/":
        return False
    if p[0] == "?":
        return reference(p[1:], s[1:], False)
    if p[0] == "[":
        body, rest = p[1:p.index("]")], p[p.index("]") + 1:]
        inside = s[0] in "ab" if body == "a-b" else (s[0] != "a" if body == "!a" else s[0] in body)
        return inside and reference(rest, s[1:], False)
    literal, rest = (p[1], p[2:]) if p[0] == "\\" else (p[0], p[1:])
    return s[0] == literal and reference(rest, s[1:], False)


def test_random_globs_agree_with_the_definition():
    rng = random.Random(20240614)
    for _ in range(20_000):
        pattern = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))
        path = "".join(rng.choice("ab./*") for _ in range(rng.randint(1, 8)))
        anchored = rng.random() < 0.5
        want = reference(pattern, path) or (not anchored and any(
            reference(pattern, path[i + 1:]) for i, c in enumerate(path) if c == "/"))
        assert Glob(pattern, anchored).match(path) is want, (pattern, path, anchored)


@pytest.mark.parametrize("pattern, path, matches", [
    ("src/**/*.py", "src/a/b/c.py", True), ("src/**/*.py", "src/c.py", True), ("src/**/*.py", "lib/c.py", False),
    ("[[:upper:]]*.md", "README.md", True), ("[[:upper:]]*.md", "readme.md", False),
    ("[]]x", "]x", True), ("[!]]x", "]x", False), ("[a/b]", "/", False), ("a[", "a[", True),
    ("docs", "docs", True), ("docs", "docs/x", False),
])
def test_some_globs_by_hand(pattern: str, path: str, matches: bool):
    assert Glob(pattern).match(path) is matches


@pytest.mark.parametrize("pattern", ["[z-a].txt", "[[:nosuch:]]"])
def test_globs_that_cannot_mean_anything_are_refused(pattern: str):
    with pytest.raises(GlobError):
        Glob(pattern)
