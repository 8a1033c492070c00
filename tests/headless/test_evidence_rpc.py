"""Evidence over real JSON-RPC: ``council serve --workspace`` lets a persona's reply ask for files; the results reach
every persona's next cycle, arrive as an ``evidence.gathered`` event with the files as references, are journaled and
survive ``council/restore`` into a sidecar that has no workspace at all."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import pytest

from .conftest import PROBLEM, events_of, persona_reply, wait_for_event

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
PLAN = "PLAN-SENTINEL-7: billing moves out first."
READ_THE_PLAN = "I read the plan in notes/plan.md: move billing out first."


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "plan.md").write_text(f"# Plan\n{PLAN}\n", encoding="utf-8")
    (root / ".env").write_text("TOKEN=do-not-leak\n", encoding="utf-8")
    return root


def script() -> dict:
    first = {k: v for k, v in persona_reply().items() if k not in ("changed_position", "change_reason")}
    ask = {**first, "position": "Software Architect prefers option A until it sees the plan.",
           "evidence_requests": [{"tool": "read_file", "query": "notes/plan.md", "regex": False},
                                 {"tool": "read_file", "query": ".env", "regex": False}]}
    rules = [{"when": {"schema": "PersonaReply", "purpose": "Software Architect", "cycle": 1}, "reply": ask}]
    rules += [{"when": {"schema": "PersonaReply", "purpose": name, "cycle": 2, "anywhere": PLAN},
               "reply": persona_reply(position=READ_THE_PLAN, option_id="A", vote_confidence=0.9)}
              for name in COUNCIL]
    return {"rules": rules}


async def test_evidence_reaches_every_persona_and_survives_a_restore(sidecar, tmp_path):
    root = workspace(tmp_path)
    args = ["--workspace", str(root), "--max-cycles", "2", "--min-cycles", "2"]
    async with sidecar(script=script(), args=args) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        sid = r["sessionId"]
        assert r["status"] == "completed"
        [event] = events_of(sc, sid, "evidence.gathered")
        assert event["cycle"] == 1 and event["references"] == [(root / "notes" / "plan.md").resolve().as_uri()]
        assert [(u["query"], u["ok"], u.get("refusal")) for u in event["uses"]] == [
            ("notes/plan.md", True, None), (".env", False, "secret")]
        assert "read `notes/plan.md`" in event["markdown"] and "refused: it looks like a secrets file" in event[
            "markdown"]
        second = [e["response"] for e in events_of(sc, sid, "persona.completed") if e["cycle"] == 2]
        assert sorted(x["persona"] for x in second) == sorted(COUNCIL)
        assert all(x["position"] == READ_THE_PLAN for x in second)  # each prompt held the plan
        snap = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
        assert "do-not-leak" not in str(snap)
        assert "## Evidence used" in snap["transcriptMarkdown"] and PLAN in snap["transcriptMarkdown"]
    async with sidecar(args=["--max-cycles", "2"]) as fresh:  # no workspace: nothing is read again
        restored = await fresh.call("council/restore", {"sessionId": sid, "journal": snap["journal"]})
        assert restored["status"] == "completed"
        again = await fresh.call("council/snapshot", {"sessionId": sid})
        assert again["session"]["evidence"] == snap["session"]["evidence"]


async def test_without_a_workspace_the_council_reads_nothing(sidecar, tmp_path):
    async with sidecar(script=script(), args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        s = snap["session"]
        assert s["settings"]["evidence"] is False and s["evidence"] == [] and s["workspaceOverview"] == []
        assert not events_of(sc, r["sessionId"], "evidence.gathered")


async def test_no_evidence_flag_keeps_the_workspace_for_personas_only(sidecar, tmp_path):
    root = workspace(tmp_path)
    args = ["--workspace", str(root), "--no-evidence", "--max-cycles", "1"]
    async with sidecar(script=script(), args=args) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        assert snap["session"]["settings"]["evidence"] is False and snap["session"]["evidence"] == []


def children_of(pid: int) -> list[tuple[int, str, str]]:
    """(pid, state, command line) of ``pid``'s child processes, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if entry.name.isdigit() and int(fields[1]) == pid:
            found.append((int(entry.name), fields[0], cmdline))
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
async def test_a_catastrophic_regex_does_not_freeze_the_sidecar(sidecar, tmp_path):
    """An advisor asks for a regex that backtracks for ever on a workspace line: the sidecar keeps answering
    other requests while the search runs, the search comes back cut at its time limit, and no child is left."""
    root = workspace(tmp_path)
    (root / "notes" / "stuck.txt").write_text("a" * 40 + "b\n", encoding="utf-8")
    first = {k: v for k, v in persona_reply().items() if k not in ("changed_position", "change_reason")}
    ask = {**first, "evidence_requests": [{"tool": "search_code", "query": "(a+)+$", "regex": True}]}
    script = {"rules": [{"when": {"schema": "PersonaReply", "purpose": "Software Architect", "cycle": 1},
                         "reply": ask}]}
    args = ["--workspace", str(root), "--max-cycles", "2", "--min-cycles", "2"]
    async with sidecar(script=script, args=args) as sc:
        turn: dict = {}

        async def start() -> None:
            turn.update(await sc.call("council/turn", {"text": PROBLEM, "options": {
                "personas": COUNCIL, "clarify": False}}))

        latencies: list[float] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(start)
            await wait_for_event(sc, lambda e: e["type"] == "progress" and "evidence" in e["message"])
            searching = time.monotonic()
            while not any(e["type"] == "evidence.gathered" for e in sc.events):
                asked = time.monotonic()
                assert (await sc.call("council/personas"))["personas"]
                latencies.append(time.monotonic() - asked)
                await anyio.sleep(0.05)
            searched = time.monotonic() - searching
        assert turn["status"] == "completed"
        assert 4 < searched < 5 + 2, searched  # the tool's 5 s limit, not the regex's minutes
        assert len(latencies) > 20 and max(latencies) < 0.5, max(latencies)
        [event] = events_of(sc, turn["sessionId"], "evidence.gathered")
        [use] = event["uses"]
        assert use["tool"] == "search_code" and use["ok"] and use["truncated"] and use["count"] == 0, use
        assert children_of(sc.process.pid) == []


async def test_a_file_name_that_is_not_utf8_reaches_the_wire_and_the_transcript(sidecar, tmp_path):
    root, out = tmp_path / "ws", tmp_path / "transcripts"
    (root / "docs").mkdir(parents=True)
    with open(bytes(root) + b"/docs/caf\xe9.md", "wb") as f:  # latin-1 bytes: not UTF-8
        f.write(f"{PLAN}\n".encode())
    first = {k: v for k, v in persona_reply().items() if k not in ("changed_position", "change_reason")}
    ask = {**first, "evidence_requests": [{"tool": "list_files", "query": "**", "regex": False},
                                          {"tool": "read_file", "query": "docs/caf\ufffd.md", "regex": False}]}
    script = {"rules": [{"when": {"schema": "PersonaReply", "purpose": "Software Architect", "cycle": 1},
                         "reply": ask}]}
    args = ["--workspace", str(root), "--transcript-dir", str(out), "--max-cycles", "2", "--min-cycles", "2"]
    async with sidecar(script=script, args=args) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        assert r["status"] == "completed", r  # was an internal UnicodeEncodeError writing the transcript
        [event] = events_of(sc, r["sessionId"], "evidence.gathered")
        listing, read = event["uses"]
        assert listing["ok"] and listing["text"].splitlines()[1:] == ["docs/caf\ufffd.md"]
        assert read["ok"] and PLAN in read["text"] and read["files"] == ["docs/caf\ufffd.md"]
        assert event["references"] == [(root / "docs").resolve().as_uri() + "/caf%E9.md"]
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        assert snap["session"]["workspaceOverview"] == ["docs/"]
    [file] = out.iterdir()
    text = file.read_text(encoding="utf-8")
    assert "docs/caf\ufffd.md" in text and PLAN in text
