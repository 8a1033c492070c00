"""``Members`` (the live view's reading of a reply's members as it grows) against a plain reference: one character at
a time, the documented rules and nothing else. Whatever the chunking, its state after the text equals the
reference's, on real replies, broken JSON, escapes and random JSON-ish noise. And the work it does (issue 34: the
engine's CPU per session): a whole object that comes in one piece (a reply streamed whole, or one the debate's ordered
stream held back) is read by the C decoder, not token by token.
"""

from __future__ import annotations

import json
import random

import pytest

from council.session.calls import parsing
from council.session.calls.parsing import Members
from tests.unit.test_live_render_chunks import REPLY, TEXTS, chunkings, noise


def reference(text: str) -> tuple:
    """The state Members must reach on ``text``: depth, closed, key, open, reassigned, string, where it stopped."""
    depth, closed, key, open_, reassigned, string, colon = 0, False, None, None, False, -1, False
    keys: set[str] = set()
    i, n = 0, len(text)
    while i < n and not closed:
        ch = text[i]
        if string >= 0:  # inside a string: an escape takes two characters, a quote ends it
            if ch == "\\":
                if i + 1 == n:
                    break
                i += 2
                continue
            if ch == '"':
                start, string = string, -1
                if depth == 1 and open_ == "string":
                    open_ = None
                elif depth == 1:  # a key
                    try:
                        name = json.loads(text[start:i + 1])
                    except ValueError:
                        name = text[start + 1:i]
                    reassigned = reassigned or name in keys
                    keys.add(name)
                    key, open_ = name, None
            i += 1
            continue
        if ch in " \t\r\n" or (depth >= 2 and ch not in '"[]{}'):
            i += 1
            continue
        if ch == '"':
            string = i
            if depth == 1 and colon:
                open_, colon = "string", False
        elif ch in "[{":
            depth += 1
            if depth == 2 and colon:
                open_, colon = "container", False
        elif ch in "]}":
            depth -= 1
            if depth <= 1:
                open_ = None
                closed = depth <= 0
        elif depth == 1:
            if ch == ":":
                colon = True
            elif ch == ",":
                open_ = None
            elif colon:
                open_, colon = "literal", False
        i += 1
    return depth, closed, key, open_, reassigned, string, i


def state(m: Members) -> tuple:
    return m.depth, m.closed, m.key, m.open, m.reassigned, m.string, m.pos


def scanned(chunks: list[str]) -> Members:
    m, text = Members(), ""
    for chunk in chunks:
        text += chunk
        m.scan(text)
    return m


EXTRA = [
    '{"summary": ["a \\" b", "c\\\\", "d\\', '{"k": [{"x": "]"}, "[", {"y": ["}"]}], "k2": "v"}',
    '{"a\\u00e9": 1, "a\\u00e9": [], "b\\q": "x"}', '{"s": ["x", "y"], "t": ["z\\',
    '{"n": [1, 2, [3, "4]"]], "m": "]"}',
    '{"position": "P", "summary": [] , "advice": ["x"] }  trailing "text" [',
]


@pytest.mark.parametrize("text", TEXTS + EXTRA, ids=range(len(TEXTS + EXTRA)))
def test_members_follow_the_reference_whatever_the_chunking(text):
    text = parsing._CONTROL.sub(" ", text[text.find("{"):])  # as PartialObject hands it over
    want = reference(text)
    for chunks in [[text], *chunkings(text)]:
        assert state(scanned(chunks)) == want, (text, chunks)


def test_members_follow_the_reference_on_noise():
    rng = random.Random(34)
    for _ in range(500):
        text = parsing._CONTROL.sub(" ", noise(rng))
        want = reference(text)
        for size in (1, 3, len(text)):  # the whole of it too: a whole object is read at once
            assert state(scanned([text[i:i + size] for i in range(0, len(text), size)])) == want, text


def test_a_whole_object_in_one_piece_is_read_at_once(monkeypatch):
    """No token-by-token steps for a reply that came whole (about fifty for this one before); the state is the
    reference's, a key that came twice included."""
    steps = []
    real = Members._token
    monkeypatch.setattr(Members, "_token", lambda self, ch, at: steps.append(ch) or real(self, ch, at))
    text = json.dumps(REPLY) + "\n```"
    m = scanned([text])
    assert steps == [] and state(m) == reference(text) and m.key == "vote_confidence" and m.closed
    twice = '{"position": "a", "summary": ["b"], "position": "c"} trailing'
    m = scanned([twice])
    assert steps == [] and state(m) == reference(twice) and m.reassigned and m.key == "position"
    m = scanned([text[:-40], text[-40:]])  # not whole at first: token by token, as before
    assert steps and state(m) == reference(text)
