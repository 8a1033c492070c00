"""The markdown people read, byte for byte: a scripted session over real JSON-RPC against a golden file.

Every client (the VS Code extension, ``council ask``) prints exactly the events' ``markdown``; this test pins what
that markdown is for one deterministic session, so a wording or layout change is a reviewed diff of
``tests/golden/scripted_session.md``. The extension's integration test compares against the same file.
Regenerate after an intended change with ``COUNCIL_UPDATE_GOLDEN=1 pytest tests/headless/test_golden_markdown.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .conftest import PROBLEM

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "scripted_session.md"
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]


def shown(events: list[dict]) -> str:
    """What a client appends to the chat, in seq order (progress lines are transient and not part of it)."""
    return "".join(e["markdown"] for e in sorted(events, key=lambda e: e["seq"]) if e["type"] != "progress")


async def test_scripted_session_reads_as_the_golden_file(sidecar):
    async with sidecar(args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
        sid = r["sessionId"]
        q = r["question"]
        r = await sc.call("council/answer", {"sessionId": sid, "questionId": q["questionId"],
                                             "choice": q["choices"][1]["value"], "idempotencyKey": "g1"})
        r = await sc.call("council/turn", {"sessionId": sid, "text": "skip"})
        assert r["status"] == "completed"
        text = shown(sc.session_events(sid))
    if os.environ.get("COUNCIL_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_golden_file_reads_like_prose():
    """The defects users saw, checked on the golden text itself."""
    text = GOLDEN.read_text(encoding="utf-8")
    assert text.count("## The council's answer") == 1
    assert "[object Object]" not in text and "{" not in text
    for persona in COUNCIL:  # issue 21: one compact line per cycle (position, vote, confidence), no wall of bullets
        lines = re.findall(rf"^- \*\*{re.escape(persona)}\*\* — .+ · \w+ confidence$", text, re.M)
        assert len(lines) == 2, persona
    assert "**Summary**" not in text and "**Advice**" not in text
    assert len(text[:text.index("## The council's answer")]) < 2000  # it was 7,237 characters before issue 21
    assert not re.search(r"^(#{1,6} .*)\n+(#{1,6} )", text, re.M), "a heading directly followed by a heading"
    for phrase in ("— debater", "Question 1.1", "client:", "scripted:", "(0.", "score"):
        assert phrase not in text, phrase
    assert re.search(r"\*\*After cycle 1:\*\* \d of 3 advisors gave a position", text)
