"""The transcript people keep, byte for byte: a scripted session over real JSON-RPC — a recalled past decision, an
answered and a skipped clarifying question, an attachment, evidence read from the workspace (and a refusal), two
cycles, the vote and the answer — against ``tests/golden/scripted_transcript.md``; the file ``--transcript-dir``
writes is the same text. Regenerate after an intended change with
``COUNCIL_UPDATE_GOLDEN=1 pytest tests/headless/test_golden_transcript.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .conftest import PROBLEM, persona_reply

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "scripted_transcript.md"
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
DATES = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?")


def script() -> dict:
    first = {k: v for k, v in persona_reply().items() if k not in ("changed_position", "change_reason")}
    ask = {**first, "position": "Software Architect prefers option A; the code decides how fast.",
           "evidence_requests": [{"tool": "search_code", "query": "TODO", "regex": False},
                                 {"tool": "read_file", "query": "src/billing.py", "regex": False},
                                 {"tool": "read_file", "query": ".env", "regex": False}]}
    return {"rules": [{"when": {"schema": "PersonaReply", "purpose": "Software Architect", "cycle": 1,
                                "anywhere": "this quarter"}, "reply": ask}]}


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "billing.py").write_text("class Billing:\n    # TODO: move out of the monolith\n    pass\n",
                                             encoding="utf-8")
    (root / ".env").write_text("TOKEN=x\n", encoding="utf-8")
    return root


async def test_the_transcript_reads_as_the_golden_file(sidecar, tmp_path):
    root, out = workspace(tmp_path), tmp_path / "transcripts"
    args = ["--workspace", str(root), "--memory", "--transcript-dir", str(out), "--max-cycles", "2",
            "--min-cycles", "2"]
    options = {"personas": COUNCIL}
    async with sidecar(script=script(), args=args) as sc:
        earlier = await sc.call("council/turn", {"text": "Should we split our monolith into services?",
                                                 "options": {**options, "clarify": False}})
        assert earlier["status"] == "completed"
        r = await sc.call("council/turn", {"text": PROBLEM, "options": options, "newSessionId": "golden-transcript",
                                           "references": [{"name": "notes/context.md", "content": "Team of 12."}]})
        q = r["question"]
        await sc.call("council/answer", {"sessionId": "golden-transcript", "questionId": q["questionId"],
                                         "choice": q["choices"][1]["value"], "idempotencyKey": "t1"})
        r = await sc.call("council/turn", {"sessionId": "golden-transcript", "text": "skip"})
        assert r["status"] == "completed"
        snap = await sc.call("council/snapshot", {"sessionId": "golden-transcript"})
    text = snap["transcriptMarkdown"]
    [written] = [p for p in out.iterdir() if "golden" in p.name]
    assert written.read_text(encoding="utf-8") == text
    assert re.fullmatch(r"\d{8}-\d{6}-should-we-split-our-monolith-into-services-this-goldentr\.md", written.name)
    stable = DATES.sub("<date>", text)
    if os.environ.get("COUNCIL_UPDATE_GOLDEN"):
        GOLDEN.write_text(stable, encoding="utf-8")
    assert stable == GOLDEN.read_text(encoding="utf-8")


def test_the_golden_transcript_holds_what_the_issue_asks_for():
    text = GOLDEN.read_text(encoding="utf-8")
    for part in ("# Should we split our monolith", "_Attached: `notes/context.md`._", "## Clarification",
                 "**Assumptions recorded**", "## Cycle 1 · independent positions", "## Cycle 2 · debate",
                 "🗳️ **Devil's Advocate** votes", "## Convergence", "| 2 | A 2 · B 1 |", "## Evidence used",
                 "search `TODO` — 1 match in 1 file", "read `.env` — refused", "**The vote**",
                 "## The council's answer", "### Dissent", "### Past decisions considered"):
        assert part in text, part
    assert text.count("## The council's answer") == 1 and "[object Object]" not in text
