"""Sharing the records' fields sets (issue 11) for less work (issue 34: the engine's CPU per session): the walk looks
only into the fields whose type can hold a model, never at a reply's lists of text; and still every model the
journal holds shares the one set of its names.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from test_memory import CYCLES, SCRIPT, run

from council.session.state import records as r
from council.session.state import runtime
from council.session.state.entities import SessionSettings


def models_in(value: Any) -> list[BaseModel]:
    """Every model in ``value``, looking everywhere (every field, list, tuple and dict value)."""
    if isinstance(value, BaseModel):
        return [value, *(m for v in value.__dict__.values() for m in models_in(v))]
    if isinstance(value, (list, tuple)):
        return [m for v in value for m in models_in(v)]
    if isinstance(value, dict):
        return [m for v in value.values() for m in models_in(v)]
    return []


async def test_every_model_in_the_journal_shares_the_set_of_its_names(make_service):
    rt = await run(make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES)))
    found = [m for rec in rt.journal for m in models_in(rec)]
    assert len(found) > 300
    assert all(runtime._FIELDS_SETS[frozenset(m.model_fields_set)] is m.__pydantic_fields_set__ for m in found)


async def test_a_replys_lists_of_text_are_not_walked(make_service, monkeypatch):
    walked: list[Any] = []
    real = runtime._shared_within
    monkeypatch.setattr(runtime, "_shared_within", lambda values: walked.append(values) or real(values))
    rt = await run(make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES)))
    spoken = [rec for rec in rt.journal if isinstance(rec, r.PersonaSpoke)]
    assert len(spoken) == 30 and all(len(rec.response.advice) >= 5 for rec in spoken)
    texts = [v for v in walked if isinstance(v, list) and v and all(isinstance(x, str) for x in v)]
    assert texts == []  # each reply's summary, advice, risks, next steps... were looked at item by item before


async def test_sharing_makes_no_pydantic_copy(make_service, monkeypatch):
    """A model that does not share its fields set yet is rebuilt with the shared set and its values, not copied
    with pydantic's ``__copy__`` (which copies the set and the values only for them to be replaced): about 250 such
    copies a 6×5 session before (issue 34: the engine's CPU per session)."""
    import copy as copy_module
    import types

    copied: list[str] = []
    real = copy_module.copy
    monkeypatch.setattr(runtime, "copy", types.SimpleNamespace(
        copy=lambda x: copied.append(type(x).__name__) or real(x)))
    rt = await run(make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES)))
    assert rt.session.debate_cycles == CYCLES and len(rt.journal) > 100
    assert copied == []
    found = [m for rec in rt.journal for m in models_in(rec)]
    assert all(runtime._FIELDS_SETS[frozenset(m.model_fields_set)] is m.__pydantic_fields_set__ for m in found)
    first = next(rec for rec in rt.journal if isinstance(rec, r.PersonaSpoke))
    assert first.response.model_dump() == rt.session.responses[0].model_dump()
