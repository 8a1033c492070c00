"""Evidence in whole sessions (in-process, scripted models): requested in a reply, served once between cycles,
read by every persona in the next cycle (and by the chair), journaled, listed, never the secrets."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from evidence_helpers import NO_QUESTIONS, PLAN, SECRET, asking, make_workspace
from unit_helpers import rule

from council.protocol.methods import Reference, SessionOptions, TurnCommand, TurnParams
from council.session.state import records as r
from council.session.state.entities import SessionSettings
from council.session.state.entities import SessionStatus as S
from council.session.state.grounds import EvidenceResult
from council.session.state.reducer import replay
from council.session.steps.persona_reply import persona_schema

PROBLEM = "Should we split our monolith into services this quarter?"
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
TWO_CYCLES = SessionSettings(min_cycles=2, max_cycles=2)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path)


def serve(make_service, workspace: Path | None, *rules, settings: SessionSettings = TWO_CYCLES):
    extra = {"workspace": workspace, "evidence_root": workspace} if workspace is not None else {}
    return make_service({"rules": [*rules, NO_QUESTIONS]}, settings=settings, **extra)


async def ask(h, text=PROBLEM, references=()):
    res = await h.service.turn(TurnParams(text=text, options=SessionOptions(personas=COUNCIL),
                                          references=list(references)))
    return res, h.service.store.get(res.session_id)  # the live session: its state (.rt) and its models (.pick)


def persona_calls(rt, cycle: int):
    return [c for c in rt.pick("Software Architect").calls
            if c.cycle == cycle and (c.json_schema or {}).get("title") == "PersonaReply"]


def every_prompt(rt) -> str:
    return "\n".join(m.content for c in rt.pick("Software Architect").calls for m in c.messages)


async def test_results_reach_every_persona_in_the_next_cycle_and_the_chair(make_service, workspace):
    h = serve(make_service, workspace, asking("Software Architect", ("read_file", "notes/plan.md")))
    res, rt = await ask(h)
    assert res.status is S.COMPLETED
    assert all(PLAN not in c.messages[-1].content for c in persona_calls(rt, 1))
    second = persona_calls(rt, 2)
    assert sorted(c.purpose for c in second) == sorted(COUNCIL)
    for call in second:
        assert "[E1] read_file 'notes/plan.md'" in call.messages[-1].content and PLAN in call.messages[-1].content
    chair = [c for c in rt.pick("synthesizer").calls if c.purpose == "synthesizer"]
    assert chair and PLAN in chair[-1].messages[-1].content
    use = rt.rt.session.evidence[0]
    assert (use.use_id, use.cycle, use.tool, use.ok, use.requested_by) == ("E1", 1, "read_file", True,
                                                                           ["Software Architect"])
    assert use.uris == [(workspace / "notes" / "plan.md").resolve().as_uri()]


async def test_refusals_reach_the_prompts_with_their_reason_and_secrets_never_do(make_service, workspace):
    h = serve(make_service, workspace, asking("Software Architect", ("read_file", ".env"),
                                              ("read_file", "../outside/secret.txt"), ("search_code", "hunter2")))
    _, rt = await ask(h)
    uses = {u.query: u for u in rt.rt.session.evidence}
    assert uses[".env"].refusal == "secret" and uses["../outside/secret.txt"].refusal == "outside_workspace"
    assert uses["hunter2"].ok and uses["hunter2"].count == 0
    prompt = persona_calls(rt, 2)[0].messages[-1].content
    assert "[E1] read_file '.env': refused, a secrets file (never shown)." in prompt
    assert "[E2] read_file '../outside/secret.txt': refused, outside the workspace." in prompt
    text = every_prompt(rt)
    assert "hunter2-SECRET-VALUE" not in text and SECRET not in text and "OUTSIDE-SECRET" not in text


async def test_the_event_lists_each_use_and_carries_the_files_as_references(make_service, workspace):
    h = serve(make_service, workspace, asking("Software Architect", ("read_file", "src/app.py"), ("read_file", ".env")),
              asking("Senior Developer", ("read_file", "src/app.py"), ("search_code", "TODO")))
    res, _ = await ask(h)
    [event] = h.of(res.session_id, "evidence.gathered")
    assert event["cycle"] == 1 and [u["query"] for u in event["uses"]] == ["src/app.py", ".env", "TODO"]
    assert event["uses"][0]["requestedBy"] == ["Software Architect", "Senior Developer"]  # asked twice, read once
    assert event["references"] == [(workspace / f).resolve().as_uri() for f in ("src/app.py", "src/orders.py")]
    md = event["markdown"]
    assert "✓ **E1** read `src/app.py` — 2 lines _(Software Architect and Senior Developer)_" in md
    assert "✗ **E2** read `.env` — refused: it looks like a secrets file" in md
    assert "✓ **E3** search `TODO` — 2 matches in 2 files" in md


async def test_each_cycle_serves_at_most_six_and_refuses_the_rest(make_service, workspace):
    rules = [asking(name, *[("list_files", f"{name[:3]}-{i}*") for i in range(3)]) for name in COUNCIL]
    h = serve(make_service, workspace, *rules)
    _, rt = await ask(h)
    refusals = [u.refusal for u in rt.rt.session.evidence]
    assert len(refusals) == 9 and refusals[:6] == [None] * 6 and refusals[6:] == ["limit"] * 3


async def test_a_request_answered_before_is_not_run_again(make_service, workspace):
    h = serve(make_service, workspace, asking("Software Architect", ("read_file", "src/app.py")),
              asking("Software Architect", ("read_file", "src/app.py"), cycle=2),
              settings=SessionSettings(min_cycles=3, max_cycles=3))
    _, rt = await ask(h)
    assert [u.query for u in rt.rt.session.evidence] == ["src/app.py"]
    assert rt.rt.session.evidence_rounds == [1, 2]
    kinds = [type(x).__name__ for x in rt.rt.journal if isinstance(x, r.EvidenceGathered)]
    assert kinds == ["EvidenceGathered", "EvidenceGathered"]


async def test_the_first_prompt_shows_the_tools_and_the_workspace_top_level(make_service, workspace):
    h = serve(make_service, workspace)
    _, rt = await ask(h)
    prompt = persona_calls(rt, 1)[0].messages[-1].content
    assert "evidence_requests (read_file a path" in prompt and "src/" in prompt and "notes/" in prompt
    assert ".env" not in rt.rt.session.workspace_overview and "build/" not in rt.rt.session.workspace_overview
    assert "evidence_requests" in persona_schema(rt.rt.session, 1)["properties"]


async def test_without_a_workspace_nothing_is_offered_or_read(make_service, workspace):
    h = serve(make_service, None, asking("Software Architect", ("read_file", "notes/plan.md")))
    _, rt = await ask(h)
    s = rt.rt.session
    assert not s.settings.evidence and s.evidence == [] and s.workspace_overview == []
    assert "evidence_requests" not in persona_schema(s, 1)["properties"]
    assert "evidence_requests" not in every_prompt(rt) and PLAN not in every_prompt(rt)


async def test_attachments_are_evidence_of_cycle_zero(make_service, workspace):
    h = serve(make_service, None)
    ref = Reference(name="notes/plan.md", uri="file:///ws/notes/plan.md", content=PLAN)
    res, rt = await ask(h, references=[ref, Reference(name="photo.png")])
    first, second = rt.rt.session.evidence
    assert (first.tool, first.cycle, first.ok, first.uris, first.requested_by) == (
        "attachment", 0, True, ["file:///ws/notes/plan.md"], ["User"])
    assert second.refusal == "unreadable"
    [event] = h.of(res.session_id, "evidence.gathered")
    assert event["cycle"] == 0 and event["references"] == ["file:///ws/notes/plan.md"]
    assert "attached `notes/plan.md`" in event["markdown"] and "attached `photo.png` — refused" in event["markdown"]


async def test_the_journal_replays_the_evidence_without_reading_again(make_service, workspace):
    h = serve(make_service, workspace, asking("Software Architect", ("read_file", "notes/plan.md")))
    _, rt = await ask(h)
    (workspace / "notes" / "plan.md").unlink()  # a replay that read again would find nothing
    again = replay(rt.rt.journal)
    assert again.evidence == rt.rt.session.evidence and PLAN in again.evidence[0].text
    assert again.evidence_rounds == rt.rt.session.evidence_rounds


async def test_the_budget_keeps_prompts_bounded(make_service, workspace):
    for i in range(6):
        (workspace / "src" / f"big{i}.py").write_text("\n".join(f"line {n} " + "x" * 70 for n in range(300)),
                                                     encoding="utf-8")
    rules = [asking("Software Architect", *[("read_file", f"src/big{i}.py") for i in range(3)]),
             asking("Senior Developer", *[("read_file", f"src/big{i}.py") for i in range(3, 6)])]
    h = serve(make_service, workspace, *rules)
    _, rt = await ask(h)
    assert all(u.ok and u.truncated for u in rt.rt.session.evidence)
    for call in persona_calls(rt, 2):
        block = call.messages[-1].content.split("Evidence from the user's workspace", 1)[1].split("\n\nYou may", 1)[0]
        assert 5000 < len(block) < 6800, len(block)
        assert block.count("\n[E") == 6


def test_a_scripted_rule_helper_is_a_persona_reply():
    reply = asking("X", ("read_file", "a"))["reply"]
    assert reply["evidence_requests"] == [{"tool": "read_file", "query": "a", "regex": False}]
    assert rule("PersonaReply", {})["when"] == {"schema": "PersonaReply"}


class BlockingTools:
    """Evidence tools whose first run waits until it is cancelled (a stop), then answer at once."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.block = True
        self.runs = 0

    async def overview(self) -> list[str]:
        return ["src/"]

    async def run(self, tool: str, query: str, regex: bool) -> EvidenceResult:
        self.runs += 1
        self.started.set()
        if self.block:
            await anyio.sleep_forever()
        return EvidenceResult(ok=True, text=f"read {query}", count=1)


async def test_a_stop_while_evidence_is_gathered_keeps_the_cycle_and_a_retry_gathers_it(make_service, workspace):
    """Between cycles 2 and 3 (cycle 1's evidence is gathered beside the options call, while cycle 1 still waits for
    them: a stop then drops it, as a stop during the options call always did)."""
    h = serve(make_service, workspace, asking("Software Architect", ("read_file", "src/app.py"), cycle=2),
              settings=SessionSettings(min_cycles=3, max_cycles=3))
    tools = h.service.engine.evidence = BlockingTools()
    box = {}

    async def start() -> None:
        box["turn"] = await h.service.turn(TurnParams(text=PROBLEM, new_session_id="evidence-stop",
                                                      options=SessionOptions(personas=COUNCIL)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(start)
        await tools.started.wait()
        stop = await h.service.stop("evidence-stop")
    s = h.runtime("evidence-stop").session
    assert stop.stopped and box["turn"].stopped and s.debate_cycles == 2 and s.evidence == []
    tools.block = False
    done = await h.service.turn(TurnParams(session_id="evidence-stop", command=TurnCommand.RETRY))
    s = h.runtime("evidence-stop").session
    assert done.status is S.COMPLETED and [u.text for u in s.evidence] == ["read src/app.py"]
    assert s.evidence_rounds == [2] and tools.runs == 2
    live = h.service.store.get("evidence-stop")
    assert all("read src/app.py" in c.messages[-1].content for c in persona_calls(live, 3))
