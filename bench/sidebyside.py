"""Council and AI Counsel side by side on two workloads (issues 11, 24); prints one ``name: value`` line per figure.

Run: ``.venv/bin/python bench/sidebyside.py [--ai-counsel PATH] [--prefill S]`` (or set ``AI_COUNSEL_PATH``) — about
two minutes. PATH is a checkout of AI Counsel (github.com/blueman82/ai-counsel; the issue measured commit bea919b);
without it the AI Counsel column reads ``n/a``. Each engine runs its session in a child process of its own, so
start-up time (spawn → engine ready), CPU and peak RSS are measured the same way for both. See bench/README.md.
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

from workload import LATENCY, WORKLOADS  # noqa: E402


async def child(side: str, chunk: int, path: str, workload: str, prefill: float = 0.0) -> None:
    """Child mode: build the engine, print ``ready``, run one session, print its figures as JSON."""
    def ready() -> None:
        print("ready", flush=True)

    if side == "council":
        from council_side import in_process

        out = await in_process(chunk, ready, cpu_runs=1 if prefill else 5, workload=workload, prefill=prefill)
    else:
        from aicounsel_side import run

        out = await run(path, ready, workload, prefill)
    out["peak_rss_kb"] = peak_rss_kb()  # not ru_maxrss: that survives exec, so a parent's peak would show
    print(json.dumps(out), flush=True)


def peak_rss_kb() -> int:
    """VmHWM of this process (since its exec)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))


async def spawn(side: str, chunk: int = 0, path: str = "", workload: str = "6x5",
                prefill: float = 0.0) -> dict[str, Any]:
    args = [sys.executable, str(Path(__file__)), "--child", side, "--chunk", str(chunk), "--workload", workload,
            "--prefill", str(prefill)]
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
    """Rounds that are one model-call stage. Council's cycle 1 ends with the options call, which runs beside
    cycle 2 (so cycle 2 is recorded as soon as the options are in): both are left out."""
    return rounds[2:] if side == "council" else rounds


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
    print(f"sidecar_start_s: {sc['start']:.2f} (spawn council serve -> initialize answered; its first request "
          f"answered after {sc['ready']:.2f} s: the server loads after the answer)")
    print(f"sidecar_round_wall_over_latency: {med(pure_rounds(sc['rounds'], 'council')) / LATENCY:.3f} (24-char "
          f"deltas over JSON-RPC; goal <= 1.04); session {sc['wall']:.2f} s, {sc['stages']} stages, the answer's "
          f"first words at {token(sc)} s")
    kept = await retained_per_session()
    print(f"retained_per_finished_session_kb: {kept / 1024:.0f} (tracemalloc; goal <= 512)")
    conc = await concurrent_sessions(100)
    added = (conc["rss_after_kb"] - conc["rss_before_kb"]) / 1024
    print(f"concurrent_sessions: {conc['completed']} of {conc['n']} completed, {conc['refused']} refused in "
          f"{conc['wall']:.1f} s {conc['refusal'][:90]}")
    print(f"concurrent_rss_added_mb: {added:.0f} (RSS after - before, one sidecar; goal <= 50; peak "
          f"{conc['hwm_after_kb'] / 1024:.0f} MB)")


async def workload_pair(name: str, path: str, prefill: float = 0.0) -> tuple[dict[str, Any], dict[str, Any] | None]:
    council = await spawn("council", workload=name, prefill=prefill)
    ai: dict[str, Any] | None = None
    if path:
        try:
            ai = await spawn("aicounsel", path=path, workload=name, prefill=prefill)
        except Exception as exc:
            print(f"ai_counsel: unavailable ({exc})")
    return council, ai


def token(run: dict[str, Any]) -> str:
    """Seconds to the answer's first streamed words (``answer.delta``)."""
    return f"{run['first_answer_token']:.2f}" if run.get("first_answer_token") is not None else "n/a"


def wall_ratio(council: dict[str, Any], ai: dict[str, Any] | None) -> str:
    return f"{council['wall'] / ai['wall']:.3f}x" if ai else "n/a"


async def with_prefill(path: str, prefill: float, source: str) -> None:
    """The two workloads again with latency 0.5 s + ``prefill`` s per 1,000 prompt characters (the same function
    for both engines), printed beside the fixed-latency figures above, not instead of them."""
    print(f"# latency model: {LATENCY} s + {prefill:.4f} s per 1,000 prompt characters per call (prefill from "
          f"{source})")
    for name in ("6x5", "3x3"):
        council, ai = await workload_pair(name, path, prefill)
        suffix = "" if name == "6x5" else "_3x3"
        both(f"session_wall_s_prefill{suffix}", f"{council['wall']:.2f}", f"{ai['wall']:.2f}" if ai else "n/a",
             f"ratio {wall_ratio(council, ai)}; goal <= 0.95x; {council['stages']} stages vs "
             f"{ai['stages'] if ai else 'n/a'}; council's first answer token at {token(council)} s; prompt chars "
             f"{council['prompt_chars']} vs {ai['prompt_chars'] if ai else 'n/a'}")


async def main(path: str, prefill: float = 0.0, source: str = "") -> None:
    began = time.perf_counter()
    load = os.getloadavg()[0]
    print(f"python: {sys.version.split()[0]}; cpus: {os.cpu_count()}; load: {load:.2f}")
    six = WORKLOADS["6x5"]
    print(f"workload: {len(six.personas)} personas x {six.rounds} rounds (and 3 x 3), ~1.5k chars of content per "
          f"reply, {LATENCY} s per model call; client provider (the VS Code path); AI Counsel with its summary call")
    council, ai = await workload_pair("6x5", path)
    print(f"ai_counsel_source: {path or 'n/a (pass --ai-counsel PATH or set AI_COUNSEL_PATH)'}")

    def a(key: str, fmt: str = "{}") -> str:
        return fmt.format(ai[key]) if ai else "n/a"

    both("session_wall_s", f"{council['wall']:.2f}", a("wall", "{:.2f}"),
         f"ratio {wall_ratio(council, ai)}; goal <= 0.95x; council status {council['status']}, "
         f"{council['cycles']} cycles")
    both("time_to_first_answer_token_s", token(council), a("wall", "{:.2f}"),
         f"session start -> the answer's first words shown; session wall {council['wall']:.2f} s; ai_counsel: its "
         "summary does not stream, so the answer comes with the session's end")
    both("model_call_stages", council["stages"], a("stages"), f"goal <= rounds + 1 = {six.rounds + 1}")
    both("model_calls", council["calls"], a("calls"))
    ratio = f"{council['prompt_chars'] / ai['prompt_chars']:.3f}x" if ai else "n/a"
    both("prompt_chars", council["prompt_chars"], a("prompt_chars"), f"ratio {ratio}; goal <= 0.20x")
    kinds = " · ".join(f"{k} {n} calls {chars}" for k, (n, chars) in sorted(council["by_kind"].items()))
    print(f"council_prompt_chars_by_kind: {kinds}")
    if ai:
        kinds = " · ".join(f"{k} {n} calls {chars}" for k, (n, chars) in sorted(ai["by_kind"].items()))
        print(f"ai_counsel_prompt_chars_by_kind: {kinds}")
    both("start_s", f"{council['start']:.2f}", a("start", "{:.2f}"), "spawn -> engine ready, in process")
    both("engine_cpu_ms_whole_replies", f"{council['engine_cpu'] * 1000:.0f}",
         f"{ai['cpu'] * 1000:.0f}" if ai else "n/a",
         "council: session CPU minus its fake model's and fake client's, least of 5; ai_counsel: one session's CPU")
    if ai:
        print(f"ai_counsel_engine_cpu_ms_minus_fake_model: {(ai['cpu'] - ai['model_cpu']) * 1000:.0f} (its "
              f"session's CPU minus its fake model's replay and reply building, {ai['model_cpu'] * 1000:.0f} ms, as "
              "Council's is measured; one run)")
    both("peak_rss_mb", f"{council['peak_rss_kb'] / 1024:.0f}", f"{ai['peak_rss_kb'] / 1024:.0f}" if ai else "n/a")
    rounds_c = pure_rounds(council["rounds"], "council")
    rounds_a = pure_rounds(ai["rounds"], "ai") if ai else []
    both("round_wall_over_latency_in_process", f"{med(rounds_c) / LATENCY:.3f}",
         f"{med(rounds_a) / LATENCY:.3f}" if ai else "n/a", "median of single-stage rounds; goal <= 1.02")
    both("round_overhead_ms", f"{(med(rounds_c) - LATENCY) * 1000:.1f}",
         f"{(med(rounds_a) - LATENCY) * 1000:.1f}" if ai else "n/a")
    print(f"council_cycles_1_2_s: {council['rounds'][0] + council['rounds'][1]:.3f} (cycle 1, then the options call "
          f"beside cycle 2: two stages)")
    print(f"council_first_votes: {len(council['voters'])} of {len(six.personas)}; final tally {council['tally']}")
    if ai:
        print(f"ai_counsel_tally: {ai['tally']} over {ai['rounds_completed']} rounds (every round's votes); "
              f"summary: {ai['summary']!r}")
    small, small_ai = await workload_pair("3x3", path)
    both("session_wall_s_3x3", f"{small['wall']:.2f}", f"{small_ai['wall']:.2f}" if small_ai else "n/a",
         f"ratio {wall_ratio(small, small_ai)}; goal <= 0.95x; council status {small['status']}, "
         f"{small['cycles']} cycles, {small['stages']} stages vs {small_ai['stages'] if small_ai else 'n/a'}; "
         f"final tally {small['tally']}; council's first answer token at {token(small)} s")
    if prefill:
        await with_prefill(path, prefill, source)
    await council_only(council)
    print(f"sidebyside_wall_s: {time.perf_counter() - began:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ai-counsel", default=os.environ.get("AI_COUNSEL_PATH", ""))
    parser.add_argument("--child", choices=["council", "aicounsel"])
    parser.add_argument("--chunk", type=int, default=0)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="6x5")
    parser.add_argument("--prefill", type=float, default=0.0,
                        help="also run both workloads with this many extra seconds per 1,000 prompt characters per "
                             "call (e.g. bench/prefill.py's prefill_s_per_1k_chars)")
    parser.add_argument("--prefill-source", default="bench/prefill.py on this machine",
                        help="where the --prefill figure came from (printed beside it)")
    ns = parser.parse_args()
    if ns.child:
        anyio.run(child, ns.child, ns.chunk, ns.ai_counsel, ns.workload, ns.prefill)
    else:
        anyio.run(main, ns.ai_counsel, ns.prefill, ns.prefill_source)
