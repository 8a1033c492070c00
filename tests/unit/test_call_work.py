"""A model call's schema and prompt for less work (issue 34: the engine's CPU per session): the reply budget
(``profiles.fitted``) and the compact reply-format blocks (``formats.swaps_of``) are built once per schema, not once per
call (a debate cycle asks six personas the same schema); every call still sends the schema fitted afresh would give,
as its own copy, and the prompt with every block swapped as before.
"""

from __future__ import annotations

import json

from test_memory import CYCLES, SCRIPT, run

from council.session.calls import formats, profiles
from council.session.calls.formats import format_block
from council.session.state.entities import SessionSettings
from council.session.steps.persona_reply import persona_schema


def _clear_caches() -> None:
    for fn in (getattr(profiles, "fitted", None), getattr(formats, "swaps_of", None)):
        if fn is not None:
            fn.cache_clear()


async def test_a_schema_is_fitted_and_its_blocks_swapped_once_not_once_a_call(make_service, monkeypatch):
    _clear_caches()
    fits: list[str] = []
    real_inline = profiles.inline_refs
    monkeypatch.setattr(profiles, "inline_refs", lambda schema: fits.append(schema["title"]) or real_inline(schema))
    compacted: list[str] = []
    real_block = formats.format_block
    monkeypatch.setattr(formats, "format_block", lambda schema, compact=False: (
        compact and compacted.append(schema["title"])) or real_block(schema, compact=compact))
    h = make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES))
    rt = await run(h)
    provider = next(iter(h.service.hub._cache.values()))
    asked = {json.dumps(c.json_schema) for c in provider.calls}
    assert rt.session.debate_cycles == CYCLES and len(provider.calls) >= 6 * CYCLES + 2
    assert fits.count("PersonaReply") <= CYCLES + 1  # one per cycle's schema; once per call (30) before
    assert len(fits) <= len(asked)
    assert compacted.count("PersonaReply") <= CYCLES + 1 and len(compacted) <= len(asked)  # 30 and 32 before


async def test_each_call_sends_what_fitting_afresh_gives_as_its_own_copy(make_service):
    h = make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES))
    rt = await run(h)
    provider = next(iter(h.service.hub._cache.values()))
    persona_calls = [c for c in provider.calls if c.json_schema["title"] == "PersonaReply"]
    assert len(persona_calls) == 6 * CYCLES
    first, second = persona_calls[0].json_schema, persona_calls[1].json_schema
    assert first == second and first["properties"] is not second["properties"]  # a call cannot change another's

    def afresh(schema: dict) -> dict:
        return json.loads(profiles.fitted.__wrapped__(json.dumps(schema), profiles.FULL, 10**6)[0])

    for call in persona_calls:
        schemas = [persona_schema(rt.session, call.cycle, backing=b) for b in (False, True)]
        assert call.json_schema in [afresh(s) for s in schemas]
        text = "\n".join(m.content for m in call.messages)
        assert format_block(call.json_schema, compact=True) in text and format_block(schemas[0]) not in text


async def test_applying_a_record_without_a_turn_raises_nothing(make_service, monkeypatch):
    """The reducer reads a record's message turn from its values: asking a record that has none for it made pydantic
    raise (and the reducer catch) an AttributeError, for most of a session's records."""
    from pydantic import BaseModel

    asked: list[str] = []
    real = BaseModel.__getattr__
    monkeypatch.setattr(BaseModel, "__getattr__", lambda self, name: (
        asked.append(type(self).__name__) if name == "turn" else None) or real(self, name))
    rt = await run(make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES)))
    assert len(rt.journal) > 100 and rt.session.debate_cycles == CYCLES
    assert asked == []  # once per record without a turn before (ModelUsed, VoteCast, StatusSet ...)


async def test_a_cycles_schema_is_written_as_json_once_not_once_a_call(make_service, monkeypatch):
    """Every call of a debate cycle asks the same schema: its JSON text (the key of the fitted schema and the
    reply-format swaps) is written once, not once per call (issue 34: the engine's CPU per session): the cycle writes
    it and passes it along in each call's spec."""
    import types

    from council.session.calls import structured

    written: list[str] = []
    real = json.dumps

    def dumps(value, *args, **kwargs):
        if isinstance(value, dict) and value.get("title") == "PersonaReply":
            written.append(value["title"])
        return real(value, *args, **kwargs)

    monkeypatch.setattr(structured, "json", types.SimpleNamespace(dumps=dumps, loads=json.loads))  # its own calls
    h = make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES))
    rt = await run(h)
    provider = next(iter(h.service.hub._cache.values()))
    assert rt.session.debate_cycles == CYCLES
    assert sum(c.json_schema["title"] == "PersonaReply" for c in provider.calls) == 6 * CYCLES
    assert len(written) <= CYCLES + 1  # one per cycle's schema; once per call (30) before
