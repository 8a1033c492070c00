"""Council and AI Counsel side by side on one workload (issue 11); prints one ``name: value`` line per figure.

Run: ``.venv/bin/python bench/sidebyside.py [--ai-counsel PATH]`` (or set ``AI_COUNSEL_PATH``) — about a minute.
PATH is a checkout of AI Counsel (github.com/blueman82/ai-counsel; the issue measured commit bea919b); without
it the AI Counsel column reads ``n/a``. Each engine runs its session in a child process of its own, so start-up
time (spawn → engine ready), CPU and peak RSS are measured the same way for both. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import LATENCY, ROUNDS, SIX  # noqa: E402


async def child(side: str, chunk: int, path: str) -> None:
    """Child mode: build the engine, print ``ready``, run one session, print its figures as JSON."""
    def ready() -> None:
        print("ready", flush=True)

    if side == "council":
        from council_side import in_process

        out = await in_process(chunk, ready)
    else:
        from aicounsel_side import run

        out = await run(path, ready)
    out["peak_rss_kb"] = peak_rss_kb()  # not ru_maxrss: that survives exec, so a parent's peak would show
    print(json.dumps(out), flush=True)


def peak_rss_kb() -> int:
    """VmHWM of this process (since its exec)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))


async def spawn(side: str, chunk: int = 0, path: str = "") -> dict[str, Any]:
    args = [sys.executable, str(Path(__file__)), "--child", side, "--chunk", str(chunk)]
    if path:
        args += ["--ai-counsel", path]
    started = time.perf_counter()
    async with await anyio.open_process(args, stderr=None) as proc:
        assert proc.stdout is not None
        lines: list[str] = []
        buf = b""
        ready_at = None
        async for data in proc.stdout:
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line == b"ready" and ready_at is None:
                    ready_at = time.perf_counter()
                else:
                    lines.append(line.decode())
        await proc.wait()
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{side} child failed (exit {proc.returncode})")
    out = json.loads(lines[-1])
    out["start"] = (ready_at or started) - started
    return out


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def both(name: str, c: Any, a: Any, note: str = "") -> None:
    print(f"{name}: council {c} | ai_counsel {a}" + (f" ({note})" if note else ""))


def pure_rounds(rounds: list[float], side: str) -> list[float]:
    """Rounds that are one model-call stage: Council's cycle 1 also holds the options call, so it is left out."""
    return rounds[1:] if side == "council" else rounds


async def council_only(council: dict[str, Any]) -> None:
    """The figures only Council has: streaming CPU by delta size, the sidecar, memory, concurrency."""
    for chunk in (24, 4):
        run = await spawn("council", chunk)
        ratio = med(pure_rounds(run["rounds"], "council")) / LATENCY
        print(f"council_engine_cpu_ms_{chunk}_char_deltas: {run['engine_cpu'] * 1000:.0f} (median "
              f"{run['engine_cpu_median'] * 1000:.0f}; whole replies {council['engine_cpu'] * 1000:.0f}; goal at 4: "
              f"<= 60); round/latency {ratio:.3f}")
    from council_side import concurrent_sessions, retained_per_session, through_sidecar

    sc = await through_sidecar(24)
    print(f"sidecar_start_s: {sc['start']:.2f} (spawn council serve -> initialize answered)")
    print(f"sidecar_round_wall_over_latency: {med(pure_rounds(sc['rounds'], 'council')) / LATENCY:.3f} (24-char "
          f"deltas over JSON-RPC; goal <= 1.04); session {sc['wall']:.2f} s, {sc['stages']} stages")
    kept = await retained_per_session()
    print(f"retained_per_finished_session_kb: {kept / 1024:.0f} (tracemalloc; goal <= 512)")
    conc = await concurrent_sessions(100)
    added = (conc["rss_after_kb"] - conc["rss_before_kb"]) / 1024
    print(f"concurrent_sessions: {conc['completed']} of {conc['n']} completed, {conc['refused']} refused in "
          f"{conc['wall']:.1f} s {conc['refusal'][:90]}")
    print(f"concurrent_rss_added_mb: {added:.0f} (RSS after - before, one sidecar; goal <= 50; peak "
          f"{conc['hwm_after_kb'] / 1024:.0f} MB)")


async def main(path: str) -> None:
    began = time.perf_counter()
    load = os.getloadavg()[0]
    print(f"python: {sys.version.split()[0]}; cpus: {os.cpu_count()}; load: {load:.2f}")
    print(f"workload: {len(SIX)} personas x {ROUNDS} rounds, ~1.5k chars of content per reply, {LATENCY} s per "
          f"model call; client provider (the VS Code path)")
    council = await spawn("council")
    ai: dict[str, Any] | None = None
    if path:
        try:
            ai = await spawn("aicounsel", path=path)
        except Exception as exc:
            print(f"ai_counsel: unavailable ({exc})")
    print(f"ai_counsel_source: {path or 'n/a (pass --ai-counsel PATH or set AI_COUNSEL_PATH)'}")

    def a(key: str, fmt: str = "{}") -> str:
        return fmt.format(ai[key]) if ai else "n/a"

    both("session_wall_s", f"{council['wall']:.2f}", a("wall", "{:.2f}"),
         f"goal <= 3.7 s; council status {council['status']}, {council['cycles']} cycles")
    both("model_call_stages", council["stages"], a("stages"), "goal <= 7")
    both("model_calls", council["calls"], a("calls"))
    ratio = f"{council['prompt_chars'] / ai['prompt_chars']:.3f}x" if ai else "n/a"
    both("prompt_chars", council["prompt_chars"], a("prompt_chars"), f"ratio {ratio}; goal <= 0.20x")
    kinds = " · ".join(f"{k} {n} calls {chars}" for k, (n, chars) in sorted(council["by_kind"].items()))
    print(f"council_prompt_chars_by_kind: {kinds}")
    both("start_s", f"{council['start']:.2f}", a("start", "{:.2f}"), "spawn -> engine ready, in process")
    both("engine_cpu_ms_whole_replies", f"{council['engine_cpu'] * 1000:.0f}",
         f"{ai['cpu'] * 1000:.0f}" if ai else "n/a",
         "council: session CPU minus its fake model's, least of 5; ai_counsel: one session's CPU")
    both("peak_rss_mb", f"{council['peak_rss_kb'] / 1024:.0f}", f"{ai['peak_rss_kb'] / 1024:.0f}" if ai else "n/a")
    rounds_c = pure_rounds(council["rounds"], "council")
    rounds_a = pure_rounds(ai["rounds"], "ai") if ai else []
    both("round_wall_over_latency_in_process", f"{med(rounds_c) / LATENCY:.3f}",
         f"{med(rounds_a) / LATENCY:.3f}" if ai else "n/a", "median of single-stage rounds; goal <= 1.02")
    both("round_overhead_ms", f"{(med(rounds_c) - LATENCY) * 1000:.1f}",
         f"{(med(rounds_a) - LATENCY) * 1000:.1f}" if ai else "n/a")
    print(f"council_cycle1_s: {council['rounds'][0]:.3f} (independent cycle + the options call with the first "
          f"votes)")
    print(f"council_first_votes: {len(council['voters'])} of {len(SIX)}; final tally {council['tally']}")
    if ai:
        print(f"ai_counsel_tally: {ai['tally']} over {ai['rounds_completed']} rounds (every round's votes)")
    await council_only(council)
    print(f"sidebyside_wall_s: {time.perf_counter() - began:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ai-counsel", default=os.environ.get("AI_COUNSEL_PATH", ""))
    parser.add_argument("--child", choices=["council", "aicounsel"])
    parser.add_argument("--chunk", type=int, default=0)
    ns = parser.parse_args()
    if ns.child:
        anyio.run(child, ns.child, ns.chunk, ns.ai_counsel)
    else:
        anyio.run(main, ns.ai_counsel)
