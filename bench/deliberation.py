"""Deliberation figures for bench.py (issue 5): prompt size with digests vs full history, and routing latency.

Prompt tokens: a scripted 6-persona session is forced through 5 debate cycles (two personas swap votes every
cycle, so nothing converges); every persona prompt the engine actually sent is collected. The baseline is the
same prompts with the digest replaced by the full history the peer tools send — every earlier reply of every
persona, complete. Tokens are counted with SmolLM2's tokenizer when llama-cpp-python is installed, else as
characters / 4 (the ratio is what matters).

Routing: ``select_personas`` over a fixed set of requests, median wall time per request, with the warm
sentence-transformers ranker (loaded once, not timed) and with TF-IDF.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from council.config import CouncilConfig, ProviderConfig
from council.personas.loader import load_personas
from council.personas.routing import TfidfRanker, select_personas
from council.protocol.methods import SessionOptions, TurnParams
from council.service import CouncilService
from council.session.state.entities import SessionSettings

SIX = ["Software Architect", "Senior Developer", "Security Expert", "Reliability Engineer", "Product Manager",
       "Devil's Advocate"]
CYCLES = 5
REQUESTS = [
    "Should we split our monolith into services this quarter?",
    "Our JWT tokens leak in logs; how do we rotate secrets safely?",
    "Should we raise prices for the enterprise tier next year?",
    "How do we cut p99 latency of the checkout API without a rewrite?",
    "Как нам ускорить релизы и не сломать прод?",
    "Is it time to hire a second SRE or invest in automation?",
]


def _reply(cycle: int, option: str, who: str) -> dict[str, Any]:
    reply = {"position": f"{who} prefers option {option} in cycle {cycle}: keep the trade-off explicit and measured.",
             "summary": [f"{who}: summary point {i} about the monolith and its seams." for i in range(5)],
             "advice": [f"{who}: advice {i} — extract one bounded context, measure, then decide." for i in range(5)],
             "risks": [f"{who}: risk {i} of stalled delivery or split ownership." for i in range(3)],
             "assumptions": ["The team has capacity."], "questions": [],
             "next_steps": [f"{who}: step {i}." for i in range(5)], "confidence": "medium",
             "confidence_rationale": "Enough signal to act, not enough to be sure.", "continue_debate": True,
             "vote_confidence": 0.7}
    if cycle > 1:
        reply.update(changed_position=True, change_reason="a new cost argument", option_id=option)
    return reply


def _script() -> dict[str, Any]:
    rules: list[dict[str, Any]] = []
    for name in SIX:
        first = "B" if name in ("Security Expert", "Devil's Advocate") else "A"  # the cycle-1 recommendation
        for cycle in range(1, CYCLES + 1):
            option = first
            if name in ("Software Architect", "Security Expert") and cycle > 1:
                option = ("BA" if first == "A" else "AB")[cycle % 2]
            rules.append({"when": {"schema": "PersonaReply", "purpose": name, "cycle": cycle},
                          "reply": _reply(cycle, option, name)})
    return {"rules": rules}


def token_counter() -> tuple[Callable[[str], int], str]:
    try:
        from llama_cpp import Llama

        from council.providers.embedded import default_model_path

        llama = Llama(model_path=str(default_model_path()), vocab_only=True, verbose=False)
        return (lambda text: len(llama.tokenize(text.encode("utf-8"), add_bos=False))), "SmolLM2 tokenizer"
    except Exception:
        return (lambda text: len(text) // 4), "characters / 4"


async def prompt_tokens() -> None:
    library = load_personas()
    cfg = CouncilConfig(default="s", providers={"s": ProviderConfig(kind="scripted", options={"script": _script()})})
    service = CouncilService(library, cfg, lambda _e: None,
                             settings=SessionSettings(max_cycles=CYCLES, min_cycles=CYCLES))
    res = await service.turn(TurnParams(text=REQUESTS[0], options=SessionOptions(clarify=False, personas=SIX)))
    session = service.store.get(res.session_id).rt.session
    provider = next(iter(service.hub._cache.values()))
    count, how = token_counter()
    digest_total = full_total = calls = 0
    for call in provider.calls:
        if (call.json_schema or {}).get("title") != "PersonaReply":
            continue
        calls += 1
        text = "\n".join(m.content for m in call.messages)
        digest_total += count(text)
        history = [r for r in session.responses if r.cycle < call.cycle]
        marker = "The other advisors' current positions:"
        base = text.split(marker)[0] if marker in text else text
        full = base + "\n".join(json.dumps(r.model_dump(exclude_none=True), ensure_ascii=False) for r in history)
        full_total += count(full)
    print(f"prompt_cycles: {session.debate_cycles} cycles x {len(SIX)} personas = {calls} persona calls")
    print(f"prompt_tokens_digest: {digest_total} ({how})")
    print(f"prompt_tokens_full_history: {full_total}")
    print(f"prompt_tokens_ratio: {digest_total / max(1, full_total):.2f}x (digest / full history; goal <= 0.40)")


def routing_latency() -> None:
    library = load_personas()
    rankers: list[tuple[str, Any]] = [("tfidf", TfidfRanker())]
    try:
        from council.personas.embeddings import EmbeddingRanker

        started = time.perf_counter()
        warm = EmbeddingRanker().warm_up([p.routing_text() for p in library.all])
        print(f"routing_embeddings_warmup_s: {time.perf_counter() - started:.1f} (import torch + load model, once)")
        rankers.insert(0, ("embeddings", warm))
    except Exception as exc:
        print(f"routing_ms_embeddings: unavailable ({type(exc).__name__}: {exc})")
    for name, ranker in rankers:
        select_personas(library, REQUESTS[0], ranker=ranker)  # warm caches
        times = []
        for _ in range(3):
            for text in REQUESTS:
                t = time.perf_counter()
                select_personas(library, text, ranker=ranker)
                times.append((time.perf_counter() - t) * 1000)
        print(f"routing_ms_{name}: {statistics.median(times):.1f} (median of {len(times)} requests)")
