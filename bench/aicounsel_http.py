"""AI Counsel's engine against a real OpenAI-compatible server (issue 34), run as a child of ``bench/realgen.py``.

Run: ``python bench/aicounsel_http.py --ai-counsel PATH --base-url URL --rounds R --participants A,B,C`` — prints
one JSON line with the session's wall time, its status and what it decided.

Nothing of AI Counsel is vendored: its ``deliberation.engine`` and ``adapters`` are imported from the checkout the
caller gives (the issues use commit bea919b). Every participant is its ``openai`` adapter (Chat Completions, the
path it takes for any OpenAI-compatible endpoint; its config.yaml's values: timeout 300 s, 3 retries) at the given
base URL, named by a persona's name as its model (the bench's proxy serves every name with the one model). The same
adapter is registered as ``claude`` too, so the engine's summarizer chain makes its summary call after the last
round (model ``sonnet``, on the same server), as a real install with that CLI makes it. The engine runs with
``config=None``, as in ``bench/sidebyside.py``: no convergence detection, early stopping or decision graph (its
embedding backend would load torch), so it runs every round it is asked for.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path


async def run(path: str, base_url: str, api_key: str | None, rounds: int, participants: list[str],
              question: str) -> dict:
    sys.path.insert(0, str(Path(path).resolve()))
    from adapters.openai import OpenAIAdapter  # type: ignore[import-not-found]
    from deliberation.engine import DeliberationEngine  # type: ignore[import-not-found]
    from models.schema import DeliberateRequest, Participant  # type: ignore[import-not-found]

    adapter = OpenAIAdapter(base_url=base_url, timeout=300, max_retries=3, api_key=api_key)
    with tempfile.TemporaryDirectory() as tmp:
        engine = DeliberationEngine({"openai": adapter, "claude": adapter}, config=None, server_dir=Path(tmp))
        request = DeliberateRequest(question=question, mode="conference", rounds=rounds, working_directory=tmp,
                                    participants=[Participant(cli="openai", model=m) for m in participants])
        started = time.perf_counter()
        result = await engine.execute(request)
        wall = time.perf_counter() - started
    tally = result.voting_result.final_tally if result.voting_result else {}
    return {"wall": wall, "status": result.status, "rounds_completed": result.rounds_completed, "tally": tally,
            "summary": (result.summary.consensus or "")[:100]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--ai-counsel", required=True)
    p.add_argument("--base-url", required=True)
    p.add_argument("--api-key-env", default="")
    p.add_argument("--rounds", type=int, required=True)
    p.add_argument("--participants", required=True)
    p.add_argument("--question", required=True)
    ns = p.parse_args()
    key = os.environ.get(ns.api_key_env) if ns.api_key_env else None
    out = asyncio.run(run(ns.ai_counsel, ns.base_url, key, ns.rounds, ns.participants.split(","), ns.question))
    print(json.dumps(out, default=str), flush=True)


if __name__ == "__main__":
    main()
