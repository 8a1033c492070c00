"""The live renderer chunk by chunk: after every chunk, whatever the chunking, it has sent byte for byte what it
sends for that prefix in one piece; every prefix parses to values the whole reply extends. On real replies, odd
formatting, broken JSON and random JSON-ish noise. Plus: text that cannot continue an object stops parsing for good.
"""

from __future__ import annotations

import json
import random

import pytest

from council.present.live_render import LiveRenderer
from council.session.calls import parsing
from council.session.calls.parsing import PartialObject, parse_prefix
from council.session.state.outputs import PersonaReply

REPLY = {
    "position": "Migrate the billing module first, behind a feature flag.",
    "summary": ["Billing is the riskiest part.", "The team knows it well.", "   ", "Caf\u00e9 \U0001f600 ok"],
    "advice": ["Start with read paths.", 'Quote: "measure twice"', "Back\\slash and tab\there"],
    "risks": ["Data drift between old and new."],
    "assumptions": ["Two engineers are free."],
    "next_steps": ["Write the flag.", "Shadow traffic for a week.", "Cut over."],
    "confidence": "medium",
    "confidence_rationale": "done it twice",
    "continue_debate": True,
    "vote_confidence": 0.7,
}
LIMITS = {"position": 20, "summary": 2, "advice": 7, "risks": 1}
REORDERED = {k: REPLY[k] for k in ("confidence", "summary", "position", "advice", "next_steps", "risks")}
VALID = [  # (text, the object it holds)
    (json.dumps(REPLY), REPLY),
    (json.dumps(REPLY, ensure_ascii=False, indent=2), REPLY),
    ("Here you go:\n```json\n" + json.dumps(REPLY, indent=1) + "\n```", REPLY),
    (json.dumps(REORDERED), REORDERED),
    (json.dumps({**REPLY, "position": "  padded  "}) + ' trailing prose {"x": 1}', {**REPLY, "position": "  padded  "}),
    ('{"position": null, "summary": [1, "one", ["nested", "list"], true], "advice": "not a list"}',
     {"position": None, "summary": [1, "one", ["nested", "list"], True], "advice": "not a list"}),
]
BROKEN = [
    '{"position": "P", "summary": ["a", "b" "c"], "advice": ["x",, "y"]}',
    '{position: "unquoted key"}',
    '{"position" "no colon", "summary": ["a"]}',
    '{"n": 12 "b": 3, "position": "after a broken literal"}',
    r'{"position": "escapes \ud83d\ude00 \ud83d x \u00zz \q end", "summary": ["\u00e9"]}',
]
TEXTS = [text for text, _ in VALID] + BROKEN


def extends(whole, part) -> bool:
    """``whole`` is what ``part`` becomes as the text goes on: equal, or a longer string or list."""
    if isinstance(part, str) and isinstance(whole, str):
        return whole.startswith(part)
    if isinstance(part, list) and isinstance(whole, list) and len(part) <= len(whole):
        return all(a == b for a, b in zip(part[:-1], whole, strict=False)) and (
            not part or extends(whole[len(part) - 1], part[-1]))
    return part is None or part == whole


@pytest.mark.parametrize(("text", "whole"), VALID, ids=range(len(VALID)))
def test_every_prefix_parses_to_what_the_reply_extends(text, whole):
    for n in range(len(text) + 1):
        obj, done = parse_prefix(text[:n])
        assert done <= set(obj) and len(set(obj) - done) <= 1, repr(text[:n])
        for key, value in obj.items():
            if key in done:
                assert value == whole[key], repr(text[:n])
            else:
                assert extends(whole[key], value), repr(text[:n])
    assert parse_prefix(text) == (whole, set(whole))


def test_noise_parses_without_error():
    rng = random.Random(11)
    for _ in range(600):
        text = noise(rng)
        for n in range(len(text) + 1):
            obj, done = parse_prefix(text[:n])
            assert done <= set(obj)


def noise(rng: random.Random) -> str:
    tokens = ['{', '}', '[', ']', '"', '\\', '\\u', '00e9', 'd83d', '\\ude00', ':', ',', ' ', '\n', 'a', 'true',
              'null', '12', '"position"', '"summary"', '"advice"', ': "', '", ', '["', '"]', '\\"', '}]', ' x ']
    return "{" + "".join(rng.choice(tokens) for _ in range(rng.randint(1, 40)))


def sent_after_each(chunks: list[str], limits: dict | None) -> list[str]:
    renderer, sent, out = LiveRenderer(limits), "", []
    for chunk in chunks:
        sent += renderer.feed(chunk)
        out.append(sent)
    return out


def compare(text: str, chunks: list[str], limits: dict | None) -> None:
    """After every chunk, what was sent equals what one piece of the text so far gives."""
    ends = [sum(map(len, chunks[:i + 1])) for i in range(len(chunks))]
    want = [LiveRenderer(limits).feed(text[:end]) for end in ends]
    assert sent_after_each(chunks, limits) == want, (text, chunks)


def chunkings(text: str) -> list[list[str]]:
    out = [[text[i:i + size] for i in range(0, len(text), size)] for size in (1, 2, 3, 4, 5, 7, 24, 100)]
    rng = random.Random(len(text))
    for _ in range(10):
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 60))))
        out.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)])
    return out


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
@pytest.mark.parametrize("limits", [None, LIMITS])
def test_feed_output_is_byte_for_byte_the_same_for_every_chunking(text, limits):
    for chunks in chunkings(text):
        compare(text, chunks, limits)
    try:
        final = PersonaReply.model_validate_json(text).model_dump()
    except ValueError:
        return
    renderer = LiveRenderer(limits)
    sent = "".join(renderer.feed(c) for c in chunkings(text)[0]) + renderer.finish(final)
    assert sent == LiveRenderer(limits).finish(final)  # the stream ends as the whole reply renders


def test_noise_feeds_the_same_for_every_chunking():
    rng = random.Random(5)
    for _ in range(300):
        text = noise(rng)
        compare(text, [text[i:i + 3] for i in range(0, len(text), 3)], LIMITS)


@pytest.mark.parametrize("text", ['{"summary": [}', '{"options": [{"label": "x", "description": "y"}]}',
                                  '{"a": [1, }, "b": 2}'])
def test_inputs_that_once_hung_finish(text):
    obj, _ = parse_prefix(text)
    assert isinstance(obj[next(iter(obj))], list)


def test_text_that_cannot_continue_an_object_stops_parsing_for_good():
    p = PartialObject()
    p.feed('{"position": "P", "summary": ["a", "b')
    assert p.parse() == ({"position": "P", "summary": ["a", "b"]}, {"position"})
    p.feed('\\q"], "advice": ["x"]}')  # \q: no such escape
    assert p.parse() == ({"position": "P", "summary": ["a", "b"]}, {"position"})
    p.feed(', "risks": ["r"]}')
    assert p.parse() == ({"position": "P", "summary": ["a", "b"]}, {"position"})


def test_an_unfinished_literal_is_none_until_it_ends():
    assert parse_prefix('{"a": "x", "n": 12') == ({"a": "x", "n": None}, {"a"})
    assert parse_prefix('{"a": "x", "n": 12 ') == ({"a": "x", "n": None}, {"a"})
    assert parse_prefix('{"a": "x", "n": 12,') == ({"a": "x", "n": 12}, {"a", "n"})


def test_a_key_that_comes_twice_is_reported():
    p = PartialObject()
    p.feed('{"position": "dup", "summary": ["a"], "position": "sec')
    assert p.reassigned and p.parse() == ({"position": "sec", "summary": ["a"]}, {"summary"})


def test_a_held_back_list_item_is_not_parsed_again_while_it_grows(monkeypatch):
    calls = []
    real = parsing.from_json
    monkeypatch.setattr(parsing, "from_json", lambda *a, **k: calls.append(1) or real(*a, **k))
    renderer = LiveRenderer()
    assert renderer.feed('{"position": "P.", "summary": ["first", "sec') == "P.\n\n**Summary**\n- first\n"
    before = len(calls)
    for ch in "ond item, a long one":
        assert renderer.feed(ch) == ""
    assert len(calls) == before
    assert renderer.feed('"]') == "- second item, a long one\n\n"
