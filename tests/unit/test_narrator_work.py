"""The narrator's work as a cycle starts (issue 34: the engine's CPU per session): every persona of a cycle starts at
once, on the same session, so the reply's limits their live lines cut to are read off the cycle's schema once, not
once a persona; a line still cuts its position where the schema does.
"""

from __future__ import annotations

from test_memory import CYCLES, SCRIPT, SIX, run

from council import narrator
from council.present.persona import POSITION_CHARS
from council.session.state.entities import SessionSettings


async def test_the_cycles_limits_are_read_once_a_cycle(make_service, monkeypatch):
    built: list[int] = []
    real = narrator.persona_schema
    monkeypatch.setattr(narrator, "persona_schema", lambda s, cycle, **kw: built.append(cycle) or real(s, cycle, **kw))
    h = make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES))
    rt = await run(h)
    assert rt.session.debate_cycles == CYCLES
    assert built == list(range(1, CYCLES + 1))  # once a persona before: six times a cycle
    started = [e for e in h.events if e["type"] == "persona.started"]
    assert len(started) == len(SIX) * CYCLES
    lines = [e["markdown"] for e in h.events if e["type"] in ("persona.delta", "persona.completed")]
    assert lines and all(len(line) < POSITION_CHARS + 200 for line in lines)
