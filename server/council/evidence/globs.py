"""Globs matched in linear time: the patterns the models give ``list_files`` and the ``.gitignore`` rules.

A glob is matched against a ``/``-separated path without a regular expression, because a regex translated from a
glob backtracks exponentially on patterns like ``*a*a*a*a*a*b`` (``[^/]*a`` repeated) and CPython's ``re`` holds
the GIL while it does, freezing the whole sidecar. Here the glob is cut at ``/`` into segments: ``*``, ``?`` and
``[…]`` never cross a ``/``, and a segment that is exactly ``**`` spans any number of folders (as the last segment,
one or more: ``a/**`` is everything inside ``a``, not ``a`` itself). Both levels are matched the same way: between
two stars lies a piece of fixed width (characters in a segment, segments in a path); the first piece must sit at the
start, the last at the end, and each one between at its leftmost fit after the previous — a star only needs its
pieces in order, so the leftmost fit is right whenever any fit is. No backtracking: at most (width of the text ×
width of the pattern) steps.

Classes follow git's wildmatch: ``[!…]`` or ``[^…]`` negates, ``]`` first is a member, ``a-z`` ranges, ``\\``
escapes, ``[:alpha:]`` and the other POSIX names; an unclosed ``[`` is a plain character. A backslash escapes the
next character. A range out of order or an unknown POSIX name is a :class:`GlobError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

POSIX: dict[str, Callable[[str], bool]] = {
    "alnum": str.isalnum, "alpha": str.isalpha, "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127, "digit": lambda c: "0" <= c <= "9",
    "graph": lambda c: c.isprintable() and c != " ", "lower": str.islower, "print": str.isprintable,
    "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(), "space": str.isspace,
    "upper": str.isupper, "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}


class GlobError(ValueError):
    """A glob that cannot mean anything (a range out of order, an unknown class name)."""


@dataclass(frozen=True)
class CharClass:
    """``[…]``: single characters, ranges and POSIX classes, maybe negated (never ``/``: segments hold none)."""

    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    named: tuple[Callable[[str], bool], ...]
    negate: bool

    def __call__(self, c: str) -> bool:
        inside = c in self.chars or any(lo <= c <= hi for lo, hi in self.ranges) or any(f(c) for f in self.named)
        return inside is not self.negate


Atom = str | CharClass | None  # a literal character, a class, or ``?`` (None: any one character)
STAR, SLASH = "STAR", "SLASH"  # tokens besides atoms; a run of stars is one ("STAR", count)


def _bracket(pattern: str, i: int) -> tuple[CharClass, int] | None:
    """The class opening at ``pattern[i] == "["`` and the index after it, or None (no closing ``]``)."""
    n = len(pattern)
    j = i + 1
    negate = j < n and pattern[j] in "!^"
    j += negate
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    named: list[Callable[[str], bool]] = []
    first = True
    while j < n and (pattern[j] != "]" or first):
        first = False
        if pattern.startswith("[:", j) and (end := pattern.find(":]", j + 2)) != -1:
            name = pattern[j + 2:end]
            if name not in POSIX:
                raise GlobError(f"unknown character class [:{name}:]")
            named.append(POSIX[name])
            j = end + 2
            continue
        c, j = (pattern[j + 1], j + 2) if pattern[j] == "\\" and j + 1 < n else (pattern[j], j + 1)
        if j + 1 < n and pattern[j] == "-" and pattern[j + 1] != "]":
            hi, j = (pattern[j + 2], j + 3) if pattern[j + 1] == "\\" and j + 2 < n else (pattern[j + 1], j + 2)
            if hi < c:
                raise GlobError(f"range out of order: {c}-{hi}")
            ranges.append((c, hi))
        else:
            chars.add(c)
    if j >= n:
        return None
    return CharClass(frozenset(chars), tuple(ranges), tuple(named), negate), j + 1


def tokens(pattern: str) -> list[Atom | tuple[str, int] | str]:
    """The glob as atoms, ``SLASH`` and ``(STAR, count)`` tokens."""
    out: list[Atom | tuple[str, int] | str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            out.append((STAR, j - i))
            i = j
            continue
        if c == "[" and (found := _bracket(pattern, i)) is not None:
            out.append(found[0])
            i = found[1]
            continue
        if c == "\\" and i + 1 < n:
            i += 1
            c = pattern[i]
            out.append(SLASH if c == "/" else c)
        else:
            out.append(SLASH if c == "/" else None if c == "?" else c)
        i += 1
    return out


class Chars:
    """A fixed-width run of atoms inside one segment."""

    def __init__(self, atoms: Sequence[Atom]) -> None:
        self.atoms = tuple(atoms)
        self.width = len(self.atoms)
        self.literal = "".join(self.atoms) if all(isinstance(a, str) for a in self.atoms) else None

    def fits(self, text: str, pos: int) -> bool:
        if pos < 0 or pos + self.width > len(text):
            return False
        if self.literal is not None:
            return text.startswith(self.literal, pos)
        return all(a is None or (a == c if isinstance(a, str) else a(c))
                   for a, c in zip(self.atoms, text[pos:pos + self.width], strict=True))

    def find(self, text: str, start: int) -> int:
        if self.literal is not None:
            return text.find(self.literal, start)
        return next((p for p in range(start, len(text) - self.width + 1) if self.fits(text, p)), -1)


class Segment:
    """One segment of the glob (between two ``/``): fixed-width pieces with a star between every two."""

    def __init__(self, toks: Sequence[Atom | tuple[str, int]]) -> None:
        pieces: list[list[Atom]] = [[]]
        for tok in toks:
            if isinstance(tok, tuple):
                pieces.append([])
            else:
                pieces[-1].append(tok)
        self.pieces = [Chars(p) for p in pieces]
        head, tail = self.pieces[0].literal, self.pieces[-1].literal
        # the common shapes skip the general walk: a plain name, or literal text around one star
        self.exact = head if len(self.pieces) == 1 else None
        self.ends = (head, tail) if len(self.pieces) == 2 and head is not None and tail is not None else None

    def match(self, text: str) -> bool:
        if self.exact is not None:
            return text == self.exact
        if self.ends is not None:
            head, tail = self.ends
            return len(text) >= len(head) + len(tail) and text.startswith(head) and text.endswith(tail)
        return _place(self.pieces, text)


class Segments:
    """A fixed-width run of segments (between two ``**``)."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        self.segments = tuple(segments)
        self.width = len(self.segments)

    def fits(self, parts: Sequence[str], pos: int) -> bool:
        if pos < 0 or pos + self.width > len(parts):
            return False
        return all(segment.match(parts[i]) for i, segment in enumerate(self.segments, start=pos))

    def find(self, parts: Sequence[str], start: int) -> int:
        return next((p for p in range(start, len(parts) - self.width + 1) if self.fits(parts, p)), -1)


def _place(pieces: Sequence[Chars] | Sequence[Segments], seq) -> bool:
    """Whether ``seq`` is ``pieces`` with anything between every two: the first at the start, the last at the end,
    each one between at its leftmost fit after the one before."""
    if len(pieces) == 1:
        return pieces[0].width == len(seq) and pieces[0].fits(seq, 0)
    first, *middle, last = pieces
    if not first.fits(seq, 0):
        return False
    pos = first.width
    for piece in middle:
        found = piece.find(seq, pos)
        if found < 0:
            return False
        pos = found + piece.width
    end = len(seq) - last.width
    return end >= pos and last.fits(seq, end)


class Glob:
    """A compiled glob; ``match`` a whole ``/``-separated relative path."""

    def __init__(self, pattern: str, anchored: bool = True) -> None:
        """``anchored``: the glob starts at the root; otherwise it may start in any folder (``**/`` before it)."""
        segments: list[list] = [[]]
        for tok in tokens(pattern):
            if tok == SLASH:
                segments.append([])
            else:
                segments[-1].append(tok)
        if segments[-1] == [(STAR, 2)]:
            segments[-1:] = [[(STAR, 1)], [(STAR, 2)]]  # a trailing "**": one or more segments
        groups: list[list[Segment]] = [[]] if anchored else [[], []]
        for seg in segments:
            if seg == [(STAR, 2)]:
                groups.append([])
            else:
                groups[-1].append(Segment(seg))
        self.groups = [Segments(g) for g in groups]

    def match(self, path: str) -> bool:
        return _place(self.groups, path.split("/"))
