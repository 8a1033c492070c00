"""What a finished session keeps (issue 11): its journal shares the session's objects, and a 6-persona, 5-cycle
session with ~1.5k-character replies stays under half a megabyte."""

from __future__ import annotations

import gc
import tracemalloc

from unit_helpers import persona_reply, rule

from council.protocol.methods import SessionOptions, TurnParams
from council.session.state import records as r
from council.session.state.entities import SessionSettings

SIX = ["Software Architect", "Senior Developer", "Security Expert", "Reliability Engineer", "Product Manager",
       "Devil's Advocate"]
CYCLES = 5


def reply(name: str, cycle: int) -> dict:
    option = "B" if (name in ("Security Expert", "Devil's Advocate")) != (name in SIX[:3:2] and cycle % 2 == 0) \
        else "A"  # four for A, two for B, two of them swapping every cycle: nothing settles
    data = persona_reply(cycle, option=option, vote_confidence=0.7, who=name, changed=cycle > 1,
                         change_reason="a new cost argument" if cycle > 1 else "")
    for key in ("summary", "advice", "next_steps"):
        data[key] = [f"{name}: {key} point {i}, about the billing seams and the audit scope." for i in range(5)]
    data["risks"] = [f"{name}: risk {i}: split ownership stalls delivery before the audit." for i in range(3)]
    return data


SCRIPT = {"rules": [rule("PersonaReply", reply(n, c), purpose=n, cycle=c) for n in SIX for c in range(1, 6)]}


async def run(h):
    res = await h.service.turn(TurnParams(text="Should we split our billing monolith this quarter?",
                                          options=SessionOptions(clarify=False, personas=SIX)))
    return h.runtime(res.session_id)


async def test_the_journal_shares_the_sessions_objects(make_service):
    rt = await run(make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES)))
    s = rt.session
    spoken = [rec for rec in rt.journal if isinstance(rec, r.PersonaSpoke)]
    assert len(spoken) == len(SIX) * CYCLES == len(s.responses)
    assert all(rec.response is resp for rec, resp in zip(spoken, s.responses, strict=True))
    votes = [rec.vote for rec in rt.journal if isinstance(rec, r.VoteCast)]
    assert len(votes) == len(s.votes) and all(a is b for a, b in zip(votes, s.votes, strict=True))
    started = [rec.discussion for rec in rt.journal if isinstance(rec, r.CycleStarted)]
    assert all(a is not b and a.status.value == "in_progress" for a, b in zip(started, s.discussions, strict=True))


async def test_a_finished_session_keeps_under_half_a_megabyte(make_service):
    h = make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES))
    await run(h)  # warm-up: schema caches, imports
    provider = next(iter(h.service.hub._cache.values()))
    provider.calls.clear()
    h.events.clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rt = await run(h)
        provider.calls.clear()  # the scripted provider's log of prompts and the test's log of events are
        h.events.clear()  # not the session's
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert rt.session.debate_cycles == CYCLES and rt.session.status.value == "completed"
    assert sum(len(x.model_dump_json()) for x in rt.session.responses) > 30 * 1200  # real-sized replies
    assert kept < 512 * 1024, f"{kept / 1024:.0f} KB kept"


async def test_applied_records_share_their_fields_sets_and_copies_stay_independent(make_service):
    rt = await run(make_service(SCRIPT, SessionSettings(min_cycles=CYCLES, max_cycles=CYCLES)))
    votes = rt.session.votes
    assert len({id(v.__pydantic_fields_set__) for v in votes}) == 1  # one set for thirty votes
    before = set(votes[1].model_fields_set)
    copy = votes[0].model_copy(update={"rationale": "changed"})
    assert copy.rationale == "changed" and votes[0].rationale != "changed"
    assert copy.__pydantic_fields_set__ is not votes[0].__pydantic_fields_set__
    assert votes[1].model_fields_set == before
