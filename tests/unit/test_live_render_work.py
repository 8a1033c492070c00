"""The live view's work per delta (issue 34: the engine's CPU per session): once every field it shows was sent in
full — a chat line shows the position only — the rest of a streaming reply is not parsed again; what it sends stays
byte for byte what it sent before, also when a key comes twice after that.
"""

from __future__ import annotations

import json

from council.present.live_render import LiveRenderer
from council.present.persona import POSITION_FIELDS
from council.session.calls import parsing
from tests.unit.test_live_render_chunks import REPLY, TEXTS, chunkings


def count_parses(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = parsing.from_json
    monkeypatch.setattr(parsing, "from_json", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_the_rest_of_a_reply_is_not_parsed_once_the_position_is_sent(monkeypatch):
    calls = count_parses(monkeypatch)
    text = json.dumps(REPLY)
    line = LiveRenderer(fields=POSITION_FIELDS)
    cut = text.index('"summary"')
    sent = line.feed(text[:cut])
    assert sent == REPLY["position"] + "\n\n"
    before = len(calls)
    for i in range(cut, len(text), 24):  # the rest in 24-character deltas: 30 of them
        assert line.feed(text[i:i + 24]) == ""
    assert len(calls) == before  # each delta was parsed again before
    assert line.finish({"position": REPLY["position"]}) == ""


def test_a_position_that_comes_again_still_shows_what_extends_it():
    text = '{"position": "Keep it.", "summary": ["a"], "position": "Keep it.\\n\\nThen split it.", "risks": []}'
    for chunks in chunkings(text):
        line = LiveRenderer(fields=POSITION_FIELDS)
        assert "".join(line.feed(c) for c in chunks) == "Keep it.\n\nThen split it.\n\n", chunks


def test_a_position_line_sends_the_same_for_every_chunking():
    for text in TEXTS:
        whole = LiveRenderer(fields=POSITION_FIELDS).feed(text)
        for chunks in chunkings(text):
            line = LiveRenderer(fields=POSITION_FIELDS)
            assert "".join(line.feed(c) for c in chunks) == whole, (text, chunks)
