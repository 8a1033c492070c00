"""AI Counsel's deliberation engine on the side-by-side workload, in process, with a fake 0.5 s adapter.

Nothing of AI Counsel is vendored or built here: ``run(path)`` imports its ``deliberation.engine`` from a checkout
whose path the caller gives (``--ai-counsel PATH`` or ``AI_COUNSEL_PATH``; the issues used commit bea919b). The
engine runs with ``config=None``: no convergence detection, early stopping or decision graph (its embedding
backend would load torch; Council runs without embeddings too), its tool executor on (it always is), transcripts
written to a temporary directory. Every participant uses one fake adapter that answers with the workload's prose
after the fixed latency; the same adapter is also registered as ``claude``, so the engine's summarizer chain runs
its summary call after the last round (Claude Sonnet, the first it prefers), as a real install with that CLI does.
The prompt an adapter receives is counted the way its adapters build it (``context + "\\n\\n" + prompt``).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from workload import QUESTION, WORKLOADS, FakeModel, aicounsel_reply, aicounsel_summary, replay_cpu


class FakeAdapter:
    """Duck-types ``BaseCLIAdapter.invoke``: the only method the engine calls on an adapter."""

    def __init__(self, model: FakeModel, names: dict[str, str]) -> None:
        self.fake = model
        self.names = names  # model id → persona name (content key)

    async def invoke(self, prompt: str, model: str, context: str | None = None, is_deliberation: bool = True,
                     working_directory: str | None = None, reasoning_effort: str | None = None) -> str:
        full = f"{context}\n\n{prompt}" if context else prompt
        if model not in self.names:  # the summarizer (model "sonnet"), after the last round
            return await self.fake.respond("summary", "summary", len(full), self.fake.build(aicounsel_summary), None)
        name = self.names[model]
        cycle = self.fake.next_cycle(name)
        return await self.fake.respond(name, "round", len(full), self.fake.build(aicounsel_reply, name, cycle), None)


def load(path: str) -> Any:
    sys.path.insert(0, str(Path(path).resolve()))
    from deliberation.engine import DeliberationEngine  # type: ignore[import-not-found]

    return DeliberationEngine


async def run(path: str, ready: Any = None, workload: str = "6x5", prefill: float = 0.0) -> dict[str, Any]:
    work = WORKLOADS[workload]
    engine_cls = load(path)
    from models.schema import DeliberateRequest, Participant  # type: ignore[import-not-found]

    fake = FakeModel(prefill=prefill)
    names = {f"model-{i}": name for i, name in enumerate(work.personas)}
    with tempfile.TemporaryDirectory() as tmp:
        adapter = FakeAdapter(fake, names)
        engine = engine_cls({"ollama": adapter, "claude": adapter}, config=None, server_dir=Path(tmp))
        if ready is not None:
            ready()
        rounds: list[float] = []
        original = engine.execute_round

        async def timed_round(*args: Any, **kwargs: Any):
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                rounds.append(time.perf_counter() - started)

        engine.execute_round = timed_round
        request = DeliberateRequest(question=QUESTION, mode="conference", rounds=work.rounds, working_directory=tmp,
                                    participants=[Participant(cli="ollama", model=m) for m in names])
        cpu, started = time.process_time(), time.perf_counter()
        result = await engine.execute(request)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    tally = result.voting_result.final_tally if result.voting_result else {}
    model_cpu = await replay_cpu(fake, fake.calls)  # its fake model's share of that CPU (the replay and its replies'
    # building), as Council's is measured
    return {"wall": wall, "cpu": cpu, "model_cpu": model_cpu, "rounds": rounds, "stages": fake.stages(),
            "calls": len(fake.calls),
            "prompt_chars": fake.prompt_chars(), "by_kind": fake.by_kind(), "tally": tally,
            "rounds_completed": result.rounds_completed, "summary": result.summary.consensus[:80]}
