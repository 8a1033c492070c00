"""A debate cycle's prompts for less work (issue 34: the engine's CPU per session): what every persona reads — the
brief, the reply format — is built once per cycle, and a persona's contract once per persona and language; each
prompt is still word for word what ``persona_messages`` writes for that persona alone.
"""

from __future__ import annotations

from test_memory import CYCLES, SCRIPT, SIX, run

from council.session.calls import debate_prompts
from council.session.state.entities import SessionSettings
from council.session.steps.persona_reply import persona_schema


async def test_a_cycles_prompts_are_each_personas_own(make_service):
    h = make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES))
    rt = await run(h)
    s = rt.session
    contracts = [h.service.library.get(name) for name in SIX]
    for cycle in (1, 2, 4):
        schema = persona_schema(s, cycle, backing=cycle == 2)
        previous = s.latest_responses(cycle - 1) if cycle > 1 else []
        votes = {v.persona: v for v in s.votes_in(cycle - 1)}
        together = debate_prompts.cycle_messages(contracts, s, schema, cycle, previous, votes)
        for c in contracts:
            alone = debate_prompts.persona_messages(c, s, schema, cycle, previous, votes)
            assert together[c.name] == alone
        if cycle > 1:
            assert "Debate cycle" in together[SIX[0]][1].content


async def test_the_reply_format_is_built_once_a_cycle(make_service, monkeypatch):
    built: list[str] = []
    real = debate_prompts.format_block
    monkeypatch.setattr(debate_prompts, "format_block",
                        lambda schema, **kw: built.append(schema["title"]) or real(schema, **kw))
    rt = await run(make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES)))
    assert rt.session.debate_cycles == CYCLES
    assert built.count("PersonaReply") == CYCLES  # six times a cycle before
