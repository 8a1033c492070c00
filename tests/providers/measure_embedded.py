"""Measure the embedded SmolLM2: model load time, time to first token and generation speed.

Run: ``PYTHONPATH=server .venv/bin/python tests/providers/measure_embedded.py [max_tokens] [runs] [n_threads]``.
Prints to stderr (this file is a tool, not a test).
"""

from __future__ import annotations

import sys
import time

import anyio

from council.config import ProviderConfig
from council.providers.base import ChatMessage, CompletionRequest
from council.providers.embedded import EmbeddedProvider, default_threads, load_model


async def main(max_tokens: int, runs: int, n_threads: int | None) -> None:
    provider = EmbeddedProvider(ProviderConfig(kind="embedded", options={"n_threads": n_threads}))
    start = time.perf_counter()
    llama, _ = await anyio.to_thread.run_sync(load_model, provider.model_path(), provider.options)
    threads = provider.options.n_threads or default_threads()
    print(
        f"load: {time.perf_counter() - start:.2f} s ({provider.model_path().name}, threads={threads})", file=sys.stderr
    )
    topics = ["bridges", "lighthouses", "canals", "windmills", "railways", "harbours"]
    for run in range(runs):
        # A different prompt each run: llama-cpp-python reuses a cached prompt prefix, which would fake TTFT.
        prompt = f"Write a detailed essay about the history of {topics[run % len(topics)]}, with many examples."
        req = CompletionRequest(
            purpose="bench",
            messages=[ChatMessage(role="user", content=prompt)],
            max_tokens=max_tokens,
            temperature=0.7,
        )
        t0 = time.perf_counter()
        first = None
        parts: list[str] = []
        async for chunk in provider.stream(req):
            if first is None:
                first = time.perf_counter() - t0
            parts.append(chunk)
        total = time.perf_counter() - t0
        n = len(llama.tokenize("".join(parts).encode(), add_bos=False, special=False))
        gen = total - (first or 0)
        print(
            f"run {run + 1}: {n} tokens in {total:.2f} s; first token {first * 1000:.0f} ms; "
            f"{max(n - 1, 0) / gen:.1f} tok/s after the first; {len(parts)} chunks",
            file=sys.stderr,
        )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    anyio.run(main, args[0] if args else 200, args[1] if len(args) > 1 else 3, args[2] if len(args) > 2 else None)
