"""Council on the side-by-side workload: in process through ``CouncilService``, and through a ``council serve`` sidecar.

Both use the ``client`` provider, the path VS Code uses: the sidecar asks its client to complete each prompt.
In process a fake :class:`ClientBridge` answers; through the sidecar this bench answers ``council/complete`` over
JSON-RPC, streaming ``council/completeDelta`` notifications. Round times come from the session's events (a
cycle's first ``persona.started`` to its ``cycle.completed``).
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from council.client.rpc import RpcError, start_sidecar
from council.config import CouncilConfig, ProviderConfig
from council.personas.loader import load_personas
from council.protocol.completion import CompleteParams, CompleteResult
from council.protocol.methods import ClientCapabilities, SessionOptions, TurnParams
from council.service import CouncilService
from council.session.state.entities import SessionSettings
from workload import QUESTION, ROUNDS, SIX, WORKLOADS, FakeModel, Workload, council_reply, replay_cpu

SIX_BY_FIVE = WORKLOADS["6x5"]


def settings_of(work: Workload) -> SessionSettings:
    return SessionSettings(max_cycles=work.rounds, min_cycles=work.rounds, extended_max_cycles=work.rounds)


def sidecar_args(work: Workload) -> list[str]:
    return ["--provider", "client", "--no-embeddings", "--log-level", "WARNING", "--max-cycles", str(work.rounds),
            "--min-cycles", str(work.rounds)]


def turn_of(work: Workload, text: str = QUESTION) -> dict[str, Any]:
    return {"text": text, "options": {"clarify": False, "personas": work.personas, "maxCycles": work.rounds},
            "client": {"completion": True, "completionModel": "fake"}}


SIDECAR_ARGS = sidecar_args(SIX_BY_FIVE)
TURN = turn_of(SIX_BY_FIVE)
assert (SIX, ROUNDS) == (SIX_BY_FIVE.personas, SIX_BY_FIVE.rounds)


def answer(model: FakeModel, params: CompleteParams) -> tuple[str, str, int]:
    """(reply text, reply kind, prompt characters) for one ``council/complete``; the fake client's CPU for it is
    counted in ``model.build_cpu`` (subtracted from the engine's, as AI Counsel's reply building is)."""
    return model.build(_answer, model, params)


def _answer(model: FakeModel, params: CompleteParams) -> tuple[str, str, int]:
    schema = params.json_schema or {}
    title = schema.get("title", "")
    prompt = "\n".join(m.content for m in params.messages)
    cycle = model.next_cycle(f"{params.session_id}:{params.purpose}") if title == "PersonaReply" else 0
    reply = council_reply(title, schema, params.purpose, cycle, prompt)
    return json.dumps(reply, ensure_ascii=False), title, sum(len(m.content) for m in params.messages)


class FakeBridge:
    """The VS Code side of ``council/complete``, in process."""

    def __init__(self, model: FakeModel) -> None:
        self.model = model

    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        text, kind, chars = answer(self.model, params)
        await self.model.respond(params.purpose, kind, chars, text, on_delta)
        return CompleteResult(text=text, model="fake")


def rounds_from(events: list[tuple[float, dict[str, Any]]]) -> list[float]:
    starts: dict[int, float] = {}
    out: list[float] = []
    for t, e in events:
        if e["type"] == "persona.started":
            starts.setdefault(e["cycle"], t)
        elif e["type"] == "cycle.completed":
            out.append(t - starts[e["cycle"]])
    return out


def service_for(model: FakeModel, sink: Callable[[dict[str, Any]], None],
                work: Workload = SIX_BY_FIVE) -> CouncilService:
    config = CouncilConfig(default="vscode", providers={"vscode": ProviderConfig(kind="client")})
    return CouncilService(load_personas(), config, sink, bridge=FakeBridge(model), settings=settings_of(work))


def turn_params(work: Workload = SIX_BY_FIVE) -> TurnParams:
    return TurnParams(text=QUESTION, options=SessionOptions(clarify=False, personas=work.personas,
                                                            max_cycles=work.rounds),
                      client=ClientCapabilities(completion=True, completion_model="fake"))


async def in_process(chunk: int = 0, ready: Callable[[], None] | None = None, cpu_runs: int = 5,
                     workload: str = "6x5", prefill: float = 0.0) -> dict[str, Any]:
    """One session of ``workload`` in process with deltas of ``chunk`` characters (0 = whole replies): its wall
    time, rounds, calls and prompts. Then the engine's CPU: ``cpu_runs`` more sessions (0.1 s per call: the same
    work, sooner), each minus the fake model's own CPU; the least of them is the least disturbed by other load."""
    work = WORKLOADS[workload]
    model = FakeModel(chunk=chunk, prefill=prefill)
    events: list[tuple[float, dict[str, Any]]] = []
    service = service_for(model, lambda e: events.append((time.perf_counter(), e)), work)
    if ready is not None:
        ready()
    cpu, started = time.process_time(), time.perf_counter()
    res = await service.turn(turn_params(work))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    s = service.store.get(res.session_id).rt.session
    await service.aclose()
    engine = [await engine_cpu(chunk, work) for _ in range(max(1, cpu_runs))]
    answered = next((t for t, e in events if e["type"] == "answer.delta"), None)
    return {"wall": wall, "cpu": cpu, "engine_cpu": min(engine), "engine_cpu_median": statistics.median(engine),
            "first_answer_token": (answered - started) if answered is not None else None,
            "rounds": rounds_from(events), "stages": model.stages(),
            "calls": len(model.calls), "prompt_chars": model.prompt_chars(), "by_kind": model.by_kind(),
            "status": res.status.value, "cycles": s.debate_cycles, "tally": s.tally.counts if s.tally else {},
            "voters": [(v.cycle, v.persona, v.option_id) for v in s.votes if v.cycle == 1]}


async def engine_cpu(chunk: int, work: Workload = SIX_BY_FIVE) -> float:
    """CPU seconds of one session minus its fake model's replay and its fake client's reply building."""
    model = FakeModel(latency=0.1, chunk=chunk)
    service = service_for(model, lambda e: None, work)
    cpu = time.process_time()
    await service.turn(turn_params(work))
    cpu = time.process_time() - cpu
    await service.aclose()
    return cpu - await replay_cpu(model, model.calls)


async def retained_per_session(sessions: int = 3) -> float:
    """Bytes still allocated per finished session (tracemalloc), after one warm-up session."""
    model = FakeModel(latency=0.0)
    service = service_for(model, lambda e: None)
    await service.turn(turn_params())
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(sessions):
        await service.turn(turn_params())
    model.calls.clear()  # the fake model's log is the bench's, not the session's
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    await service.aclose()
    return (after - before) / sessions


def rss_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in kB."""
    fields = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            fields[key] = value
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def _serve(sc: Any, model: FakeModel) -> None:
    async def complete(params: dict[str, Any]) -> dict[str, Any]:
        p = CompleteParams.model_validate(params)
        text, kind, chars = answer(model, p)

        async def delta(piece: str) -> None:
            await sc.rpc.notify("council/completeDelta", {"streamId": p.stream_id, "text": piece})

        await model.respond(p.purpose, kind, chars, text, delta)
        return {"text": text, "model": "fake"}

    sc.serve_completions(complete)


async def through_sidecar(chunk: int = 24) -> dict[str, Any]:
    """One 6×5 session through ``council serve``: start-up time and round times as the client sees them."""
    model = FakeModel(chunk=chunk)
    with open(os.devnull, "w") as devnull:
        started = time.perf_counter()
        async with start_sidecar(SIDECAR_ARGS, stderr=devnull.fileno()) as sc:
            start_s = time.perf_counter() - started
            await sc.call("council/personas")  # the server loads after answering initialize
            ready_s = time.perf_counter() - started
            _serve(sc, model)
            marks: list[tuple[float, dict[str, Any]]] = []
            sc.on_event(lambda e: marks.append((time.perf_counter(), e)))
            t0 = time.perf_counter()
            res = await sc.call("council/turn", TURN)
            wall = time.perf_counter() - t0
            rss = rss_kb(sc.process.pid)
    answered = next((t for t, e in marks if e["type"] == "answer.delta"), None)
    return {"start": start_s, "ready": ready_s, "wall": wall, "rounds": rounds_from(marks), "status": res["status"],
            "first_answer_token": (answered - t0) if answered is not None else None,
            "stages": model.stages(), "rss_kb": rss}


async def concurrent_sessions(n: int = 100) -> dict[str, Any]:
    """``n`` 6×5 sessions at once in one sidecar (whole replies): how many complete, and its memory."""
    model = FakeModel()
    outcomes: list[str] = []
    with open(os.devnull, "w") as devnull:
        async with start_sidecar(SIDECAR_ARGS, stderr=devnull.fileno()) as sc:
            _serve(sc, model)
            await sc.call("council/turn", TURN)  # warm-up: imports, caches
            before = rss_kb(sc.process.pid)

            async def one(i: int) -> None:
                try:
                    res = await sc.call("council/turn", {**TURN, "text": f"{QUESTION} (team {i})"})
                    outcomes.append(res["status"])
                except RpcError as exc:
                    outcomes.append(f"refused: {exc}")

            t0 = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for i in range(n):
                    tg.start_soon(one, i)
            wall = time.perf_counter() - t0
            after = rss_kb(sc.process.pid)
    done = sum(o == "completed" for o in outcomes)
    refused = [o for o in outcomes if o.startswith("refused")]
    return {"n": n, "completed": done, "refused": len(refused), "refusal": refused[0] if refused else "",
            "wall": wall, "rss_before_kb": before[0], "rss_after_kb": after[0], "hwm_after_kb": after[1]}
