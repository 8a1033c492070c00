"""Stop and resume in-process: a stop while the chair writes the answer, and the stop turn itself."""

from __future__ import annotations

import anyio

from council.protocol.methods import Intent, SessionOptions, TurnCommand, TurnParams
from council.session.state.entities import SessionStatus as S

PROBLEM = "Should we split our monolith into services this quarter?"


async def wait_until(predicate, timeout: float = 10) -> None:
    with anyio.fail_after(timeout):
        while not predicate():
            await anyio.sleep(0.01)


async def test_stop_while_the_answer_is_written_then_resume_synthesizes(make_service):
    h = make_service({"rules": [{"when": {"schema": "SynthesisReply"}, "delay": 0.2, "times": 1}]})
    box = {}

    async def ask() -> None:
        box["turn"] = await h.service.turn(TurnParams(text=PROBLEM, session_id=None, new_session_id="stop-final-1",
                                                      options=SessionOptions(clarify=False)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        await wait_until(lambda: any(x.rt.created and x.rt.session.status is S.FINAL and x.running
                                     and x.running.inflight_calls for x in h.service.store.all()))
        stop = await h.service.stop("stop-final-1")
    assert (stop.status, stop.stopped, stop.cancelled_calls) == (S.FINAL, True, 1)
    assert box["turn"].status is S.FINAL and box["turn"].stopped and box["turn"].final_answer is None
    s = h.runtime("stop-final-1").session
    cycles, tally = s.debate_cycles, s.tally
    assert s.stopped and s.final_answer is None and tally is not None
    (stopped,) = h.of("stop-final-1", "session.stopped")
    assert stopped["markdown"].startswith(f"**Stopped.** {cycles} completed cycles kept")
    done = await h.service.turn(TurnParams(session_id="stop-final-1", command=TurnCommand.RETRY))
    s = h.runtime("stop-final-1").session
    assert done.status is S.COMPLETED and not done.stopped and s.final_answer
    assert s.debate_cycles == cycles and s.tally == tally  # nothing ran again but the answer


async def test_a_stop_turn_stops_the_running_turn(make_service):
    h = make_service({"rules": [{"when": {"schema": "PersonaReply"}, "delay": 0.2, "times": 3}]})
    box = {}

    async def ask() -> None:
        box["turn"] = await h.service.turn(TurnParams(text=PROBLEM, new_session_id="stop-turn-1",
                                                      options=SessionOptions(clarify=False)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        await wait_until(lambda: any(x.running and x.running.inflight_calls for x in h.service.store.all()))
        typed = await h.service.turn(TurnParams(session_id="stop-turn-1", text="stop"))
    assert typed.intent is Intent.STOP and typed.stopped and typed.message is None
    assert box["turn"].status is S.DEBATING and box["turn"].stopped
    assert h.runtime("stop-turn-1").session.debate_cycles == 0
