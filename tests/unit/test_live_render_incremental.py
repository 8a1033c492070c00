"""The incremental live renderer against the re-parsing one it replaced (``live_render_reference``).

Same parse of every prefix, and byte-for-byte the same ``feed``/``finish`` output for whole replies, every chunk
size and random chunkings — on real replies, odd formatting and random JSON-ish noise. Plus: the inputs on which
the old parser looped forever now finish.
"""

from __future__ import annotations

import json
import random

import live_render_reference as old
import pytest

from council.session.live_render import LiveRenderer, PrefixParser, parse_prefix
from council.session.outputs import PersonaReply

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


def texts() -> list[str]:
    reordered = {k: REPLY[k] for k in ("confidence", "summary", "position", "advice", "next_steps", "risks")}
    return [
        json.dumps(REPLY),
        json.dumps(REPLY, ensure_ascii=False, indent=2),
        "Here you go:\n```json\n" + json.dumps(REPLY, indent=1) + "\n```",
        json.dumps(reordered),
        json.dumps({**REPLY, "position": "  padded  "}) + " trailing prose {\"x\": 1}",
        '{"position": "dup", "summary": ["a", "b"], "position": "second value", "advice": ["c"]}',
        '{"position": null, "summary": [1, "one", ["nested", "list"], true], "advice": "not a list"}',
        '{"position": "P", "summary": ["a", "b" "c"], "advice": ["x",, "y"]}',
        '{position: "unquoted key"}',
        '{"position" "no colon", "summary": ["a"]}',
        '{"n": 12 "b": 3, "position": "after a broken literal"}',
        r'{"position": "escapes \ud83d\ude00 \ud83d x \u00zz \q end", "summary": ["\u00e9"]}',
    ]


def same_prefixes(text: str) -> None:
    for n in range(len(text) + 1):
        try:
            want = old.parse_prefix(text[:n])
        except old.Hang:
            continue
        assert parse_prefix(text[:n]) == want, repr(text[:n])


@pytest.mark.parametrize("text", texts(), ids=range(len(texts())))
def test_every_prefix_parses_as_before(text):
    same_prefixes(text)


def noise(rng: random.Random) -> str:
    tokens = ['{', '}', '[', ']', '"', '\\', '\\u', '00e9', 'd83d', '\\ude00', ':', ',', ' ', '\n', 'a', 'true',
              'null', '12', '"position"', '"summary"', '"advice"', ': "', '", ', '["', '"]', '\\"', '}]', ' x ']
    return "{" + "".join(rng.choice(tokens) for _ in range(rng.randint(1, 40)))


def test_random_noise_parses_as_before():
    rng = random.Random(11)
    for _ in range(600):
        same_prefixes(noise(rng))


def feeds(renderer, chunks: list[str], final: dict | None) -> list[str]:
    out = [renderer.feed(c) for c in chunks]
    if final is not None:
        out.append(renderer.finish(final))
    return out


def compare(text: str, chunks: list[str], final: dict | None, limits: dict | None) -> None:
    try:
        want = feeds(old.LiveRenderer(limits), chunks, final)
    except old.Hang:
        return
    assert feeds(LiveRenderer(limits), chunks, final) == want, (text, chunks)


def final_of(text: str) -> dict | None:
    try:
        return PersonaReply.model_validate_json(text).model_dump()
    except ValueError:
        return None


@pytest.mark.parametrize("text", texts(), ids=range(len(texts())))
@pytest.mark.parametrize("limits", [None, LIMITS])
def test_feed_output_is_byte_for_byte_the_same(text, limits):
    final = final_of(text)
    compare(text, [text], final, limits)  # the whole reply at once
    for size in (1, 2, 3, 4, 5, 7, 24, 100):
        compare(text, [text[i:i + size] for i in range(0, len(text), size)], final, limits)
    rng = random.Random(len(text))
    for _ in range(10):
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 60))))
        compare(text, [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)], final, limits)


def test_noise_feeds_as_before():
    rng = random.Random(5)
    for _ in range(300):
        text = noise(rng)
        compare(text, [text[i:i + 3] for i in range(0, len(text), 3)], None, LIMITS)


@pytest.mark.parametrize("text", ['{"summary": [}', '{"options": [{"label": "x", "description": "y"}]}',
                                  '{"a": [1, }, "b": 2}'])
def test_inputs_that_used_to_hang_finish(text):
    obj, done = parse_prefix(text)
    assert isinstance(obj[next(iter(obj))], list) and done


def test_state_is_kept_between_chunks():
    p = PrefixParser()
    p.feed('{"position": "Mig')
    assert (p.obj, p.done) == ({"position": "Mig"}, set())
    p.feed('rate", "summary": ["a", "b')
    assert p.obj == {"position": "Migrate", "summary": ["a", "b"]} and p.done == {"position"}
    assert len(p.t) - p.i < 10  # consumed text is not kept


def test_work_per_chunk_does_not_grow_with_the_reply():
    """Each character is scanned once: feeding a long reply in 1-char chunks keeps the unconsumed text tiny."""
    text = json.dumps({**REPLY, "summary": ["x" * 500] * 14})
    p = PrefixParser()
    longest = 0
    for ch in text:
        p.feed(ch)
        longest = max(longest, len(p.t))
    assert longest <= 12  # at most an unfinished unicode escape waits
