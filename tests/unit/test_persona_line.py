"""A persona as one compact chat line (issue 21): the same line whatever the chunking, its position cut to
``POSITION_CHARS``, its vote once the options are set, and an item that always ends (a failed reply closes it)."""

from __future__ import annotations

import json

import pytest

from council.present.persona import POSITION_CHARS, PersonaLine
from council.session.state.outputs import PersonaResponse, VoteOption

REPLY = {"position": "Extract one service first.\nThen measure.", "summary": ["A long summary point."],
         "advice": ["Advice that only the transcript shows."], "risks": ["A risk."], "next_steps": ["A step."],
         "confidence": "high", "confidence_rationale": "Seen it before.", "assumptions": [], "questions": [],
         "option_id": "A", "vote_confidence": 0.8}
OPTIONS = [VoteOption(id="A", label="Extract one service", description="d1"),
           VoteOption(id="B", label="Wait", description="d2")]


def streamed(reply: dict, size: int, options=None, model=None) -> str:
    raw = json.dumps(reply)
    line = PersonaLine("Software Architect", model=model)
    out = "".join(line.feed(raw[i:i + size]) for i in range(0, len(raw), size))
    return out + line.complete(PersonaResponse(persona="Software Architect", cycle=2, **reply), options)


@pytest.mark.parametrize("size", [1, 2, 5, 13, 10_000])
def test_one_line_whatever_the_chunks(size):
    assert streamed(REPLY, size, OPTIONS, model="Model B") == (
        "- **Software Architect** · _Model B_ — Extract one service first. Then measure. · 🗳️ **A** 80% · "
        "high confidence\n\n")


def test_no_vote_before_the_options_and_nothing_but_the_position():
    text = streamed(REPLY, 7)
    assert text == "- **Software Architect** — Extract one service first. Then measure. · high confidence\n\n"
    assert "summary" not in text and "Advice" not in text


@pytest.mark.parametrize("size", [1, 9, 10_000])
def test_a_long_position_is_cut_once(size):
    text = streamed({**REPLY, "position": "word " * 100}, size)
    position = text.split(" — ", 1)[1].rsplit(" · ", 1)[0]
    assert position.endswith("…") and position.count("…") == 1 and len(position) <= POSITION_CHARS + 1


def test_a_reply_that_never_completes_is_closed_once():
    line = PersonaLine("Security Expert")
    assert line.close() == ""  # nothing shown: nothing to end
    started = line.feed('{"position": "Half a sent')
    assert started.startswith("- **Security Expert** — Half a")
    assert line.close() == "\n\n" and line.close() == ""
    assert line.feed(" more text") == ""
