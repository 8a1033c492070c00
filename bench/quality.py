"""Quality bench: the council vs a single call vs a plain majority vote, against any provider.

Two tasks, each method on the same items with the same model:

* arithmetic — Du et al. 2023 ("Improving Factuality and Reasoning in Language Models through Multiagent Debate"):
  ``a+b*c+d-e*f`` with six random integers in [0, 30]; correct when the integer given equals the value. The
  single call and every sample of the majority vote answer in JSON (``reasoning``, ``answer``); the council gets
  the question as a request (no clarification, ``--personas``, up to ``--max-cycles`` cycles, brief depth) and its
  answer is the integer in the winning option (else in its recommendation).
* clarification — requests whose right answer depends on a fact the user did not give, plus clear controls.
  Correct when a method asks about the missing fact (a question naming one of the item's keywords) — or, for a
  control, asks nothing. The single call and the samples answer in JSON (``needs_clarification``,
  ``questions``, ``answer``); the council is correct when its moderator asks a matching first question (the
  session is cancelled as soon as it would start debating: the clarification stage is what is measured).

Reported per method: accuracy, prompt tokens (SmolLM2's tokenizer when llama-cpp-python is installed, else
characters / 4) and wall time. For arithmetic the council's *first vote* (cycle 1's winner, before any debate) is
reported beside its final answer as ``first_vote`` (no calls of its own: it is read off the same sessions), with
what the debate did to it (``arithmetic_debate``: confirmed / overturned / no debate, as the answer states it, and
``arithmetic_first_vote_vs_final``: items the debate fixed or broke). Usage::

    .venv/bin/python bench/quality.py                                   # embedded SmolLM2-135M, tiny run
    .venv/bin/python bench/quality.py --provider openai --model gpt-4o-mini --api-key-env OPENAI_API_KEY \\
        --arithmetic 30 --clarification 8                               # any OpenAI-compatible endpoint
    .venv/bin/python bench/quality.py --provider ollama --model llama3.1:8b --arithmetic 30
    OPENAI_API_KEY=… .venv/bin/python bench/quality.py --provider ollama --model qwen2.5:7b --arithmetic 30 \
        --mixed "ollama:qwen2.5:7b,ollama:llama3.1:8b,openai:gpt-4o-mini@https://api.openai.com/v1"

``--mixed`` adds a fourth method beside the single-model council: the same council seated over several endpoints
(``kind:model[@base_url]`` specs, the model may hold colons; the first is the moderator's and chair's), the way
``council ask --models`` seats it (research on councils: different models add more than copies of one). An
``openai`` spec's key is the variable ``--api-key-env`` names, else ``OPENAI_API_KEY``; without ``@base_url`` it
uses ``OPENAI_BASE_URL``, else OpenAI's API; an ``ollama`` spec without one, the local Ollama.

Every endpoint is checked before the first item, and one that fails every call it gets makes the run fail: one
line naming it on stderr and exit status 3 (a table of 0/N would measure nothing).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from pydantic import Field

from council.config import ConfigError, CouncilConfig, ProviderConfig, adhoc_provider
from council.errors import CouncilError
from council.personas.loader import load_personas
from council.protocol.methods import SessionOptions, TurnParams
from council.providers.base import ChatMessage, CompletionRequest, Provider, ProviderError, complete
from council.providers.registry import build_provider
from council.service import CouncilService
from council.session.calls.parsing import ParseFailure, parse_reply
from council.session.state.entities import Depth, SessionSettings
from council.session.state.outputs import ModelReply, reply_schema

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deliberation import token_counter

PERSONAS = ["Senior Developer", "Financial Officer", "Devil's Advocate"]
CLARIFICATION: list[tuple[str, tuple[str, ...]]] = [  # (request, keywords of the missing fact; () = clear)
    ("Which database should we use for our new service?",
     ("data", "read", "write", "scale", "query", "load", "volume", "traffic", "workload", "transaction")),
    ("How much should we budget for the migration?",
     ("scope", "size", "system", "team", "timeline", "migrat", "how many", "current")),
    ("Should we hire more engineers next year?",
     ("budget", "goal", "growth", "roadmap", "revenue", "workload", "team", "backlog")),
    ("Convert 3 kilometres to metres.", ()),
    ("Is it safe to deploy on Friday afternoon?",
     ("rollback", "change", "test", "risk", "on-call", "monitor", "size", "critical")),
    ("What is the capital of France?", ()),
]
INT = re.compile(r"-?\d+")


class Answer(ModelReply):
    reasoning: str = Field(max_length=1200)
    answer: int


class ClarifyOrAnswer(ModelReply):
    needs_clarification: bool
    questions: list[str] = Field(default_factory=list, max_length=3)
    answer: str = Field("", max_length=1200)


UNUSABLE = 3  # an endpoint cannot be used: the run measured nothing


class Unusable(Exception):
    """An endpoint that cannot be used (one line for stderr)."""


class Recording(Provider):
    """Delegates to a real provider, counts the prompt tokens of every call and the calls that failed."""

    def __init__(self, inner: Provider, count: Callable[[str], int]) -> None:
        super().__init__(inner.model)
        self.inner, self.count, self.tokens = inner, count, 0
        self.id, self.constrains_json = inner.id, inner.constrains_json
        self.calls, self.failures, self.error = 0, 0, ""

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        self.tokens += sum(self.count(m.content) for m in request.messages)
        self.calls += 1
        try:
            async for chunk in self.inner.stream(request):
                yield chunk
        except ProviderError as err:
            self.failures += 1
            self.error = err.message
            raise

    def where(self) -> str:
        """The endpoint as a person finds it: provider, model and server."""
        url = getattr(self.inner, "base_url", None)
        return self.inner.describe() + (f" at {url}" if url else "")

    async def usable(self) -> None:
        """Raise :class:`Unusable` when the endpoint does not answer its health check."""
        try:
            with anyio.fail_after(15):
                status = await self.inner.check()
        except TimeoutError:
            raise Unusable(f"{self.where()} did not answer its health check within 15 s") from None
        except ProviderError as err:
            raise Unusable(f"{self.where()} cannot be used: {err.message}") from None
        if not status.available:
            raise Unusable(f"{self.where()} cannot be used: {status.detail}")

    def describe(self) -> str:
        return self.inner.describe()


def arithmetic(n: int, seed: int) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    items = []
    for _ in range(n):
        a, b, c, d, e, f = (rng.randint(0, 30) for _ in range(6))
        items.append((f"What is the result of {a}+{b}*{c}+{d}-{e}*{f}?", a + b * c + d - e * f))
    return items


async def ask_json(provider: Provider, prompt: str, model: type[ModelReply]) -> Any | None:
    schema = reply_schema(model)
    keys = ", ".join(schema["properties"])
    messages = [ChatMessage(role="system", content=f"Reply with one JSON object with the keys {keys}."),
                ChatMessage(role="user", content=prompt)]
    request = CompletionRequest(purpose="quality", messages=messages, json_schema=schema, max_tokens=400,
                                temperature=0.7)
    try:
        return parse_reply(await complete(provider, request), model, schema)
    except (ParseFailure, Exception):
        return None


def majority(values: list[Any]) -> Any:
    """The most common non-None value (None if there is none or the top two tie)."""
    counts = Counter(v for v in values if v is not None).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def arithmetic_prompt(question: str) -> str:
    return f"{question} Work it out step by step, then give the final integer as answer."


def asked_about(questions: list[str], keywords: tuple[str, ...]) -> bool:
    text = " ".join(questions).lower()
    return any(k in text for k in keywords)


class Methods:
    """The ways of answering, sharing one recording provider (and, for ``mixed``, one per extra endpoint)."""

    def __init__(self, provider: Recording, samples: int, personas: list[str], max_cycles: int,
                 mixed: list[tuple[ProviderConfig, Recording]] | None = None) -> None:
        self.provider, self.samples, self.personas, self.max_cycles = provider, samples, personas, max_cycles
        self.mixed = mixed or []
        self.first_votes: dict[str, int | None] = {}  # question → the council's first-vote answer (cycle 1)
        self.verdicts: dict[str, str] = {}  # question → what the debate did to the first vote

    @property
    def tokens(self) -> int:
        return self.provider.tokens + sum(rec.tokens for _, rec in self.mixed)

    def service(self, mixed: bool = False) -> CouncilService:
        settings = SessionSettings(max_cycles=self.max_cycles, min_cycles=1, extended_max_cycles=self.max_cycles,
                                   depth=Depth.BRIEF)
        if not mixed:
            config = CouncilConfig(default="bench", providers={"bench": ProviderConfig(kind="scripted")})
            service = CouncilService(load_personas(), config, lambda e: None, settings=settings)
            service.hub._get = lambda cfg: self.provider  # the provider under test for every role (bench only)
            return service
        providers = {f"m{i}": cfg for i, (cfg, _) in enumerate(self.mixed)}
        config = CouncilConfig(default="m0", providers=providers)
        service = CouncilService(load_personas(), config, lambda e: None, settings=settings)
        recorders = {(cfg.kind, cfg.model, cfg.base_url): rec for cfg, rec in self.mixed}
        service.hub._get = lambda cfg: recorders[(cfg.kind, cfg.model, cfg.base_url)]  # counted (bench only)
        return service

    def options(self, mixed: bool, **kw: Any) -> SessionOptions:
        models = [f"m{i}:{cfg.model}" for i, (cfg, _) in enumerate(self.mixed)] if mixed else None
        return SessionOptions(personas=self.personas, depth=Depth.BRIEF, models=models, **kw)

    async def arithmetic(self, method: str, question: str) -> int | None:
        if method == "first_vote":  # read off the council's session of this question (run just before)
            return self.first_votes.get(question)
        if method == "single":
            reply = await ask_json(self.provider, arithmetic_prompt(question), Answer)
            return reply.answer if reply else None
        if method == "majority":
            replies = [await ask_json(self.provider, arithmetic_prompt(question), Answer)
                       for _ in range(self.samples)]
            return majority([r.answer if r else None for r in replies])
        service = self.service(method == "mixed")
        try:
            res = await service.turn(TurnParams(text=arithmetic_prompt(question), options=self.options(
                method == "mixed", clarify=False, max_cycles=self.max_cycles)))
        except CouncilError as exc:  # counted as wrong, and said
            print(f"council failed on {question!r}: {exc.message}", file=sys.stderr)
            return None
        s = service.store.get(res.session_id).rt.session
        effect = s.synthesis.debate if s.synthesis else None
        if method == "council":  # the single-model council's first vote, for the first_vote method
            self.first_votes[question] = number(option_texts(s, effect.first_winner if effect else None))
            self.verdicts[question] = effect.verdict if effect else "no_vote"
        return number(option_texts(s, s.tally.winner if s.tally else None)
                      + ([s.synthesis.recommendation] if s.synthesis else []))

    async def clarification(self, method: str, request: str, keywords: tuple[str, ...]) -> bool:
        prompt = (f"The user asks: {request}\nIf the right answer depends on facts the user has not given, set "
                  "needs_clarification and ask about them; otherwise answer.")
        if method in ("single", "majority"):
            n = 1 if method == "single" else self.samples
            replies = [await ask_json(self.provider, prompt, ClarifyOrAnswer) for _ in range(n)]
            verdicts = [bool(r and r.needs_clarification and r.questions
                             and (not keywords or asked_about(r.questions, keywords))) for r in replies]
            asked = [bool(r and r.needs_clarification and r.questions) for r in replies]
            return majority(verdicts) is True if keywords else majority(asked) is False
        question = await self.council_question(request, method == "mixed")
        if not keywords:
            return question is None
        return question is not None and asked_about([question], keywords)

    async def council_question(self, request: str, mixed: bool = False) -> str | None:
        """The council's first clarifying question, or None; cancelled before any debate starts."""
        service = self.service(mixed)
        result: dict[str, Any] = {}

        def sink(event: dict[str, Any]) -> None:
            if event.get("type") == "status.changed" and event.get("status") == "debating":
                result["debating"] = event["sessionId"]

        service.store.sink = sink
        async with anyio.create_task_group() as tg:
            async def run() -> None:
                result["turn"] = await service.turn(TurnParams(text=request, options=self.options(mixed)))
                tg.cancel_scope.cancel()

            tg.start_soon(run)
            while "debating" not in result:
                await anyio.sleep(0.05)
            await service.cancel(result["debating"])
        turn = result.get("turn")
        return turn.question.question if turn is not None and turn.question is not None else None


def option_texts(s: Any, option_id: str | None) -> list[str]:
    option = next((o for o in s.options if o.id == option_id), None)
    return [option.label, option.description] if option else []


def number(texts: list[str]) -> int | None:
    """The last integer in the texts (the council's answer to an arithmetic item), or None."""
    found = [int(m) for t in texts for m in INT.findall(t)]
    return found[-1] if found else None


METHODS = ("single", "majority", "council")


async def measure(label: str, methods: Methods, items: list[Any], run: Callable[[str, Any], Awaitable[bool]],
                  extra: tuple[str, ...] = ()) -> dict[str, list[bool]]:
    """Run every item with every method (``extra`` after the council: read off its sessions); print accuracy,
    prompt tokens and wall time per method. Returns each method's verdict per item."""
    stats: dict[str, tuple[int, int, float]] = {}
    right: dict[str, list[bool]] = {}
    for method in METHODS + extra + (("mixed",) if methods.mixed else ()):
        tokens, started = methods.tokens, time.perf_counter()
        right[method] = [bool(await run(method, item)) for item in items]
        stats[method] = (sum(right[method]), methods.tokens - tokens, time.perf_counter() - started)
    n = len(items)
    print(f"{label}_accuracy: " + " | ".join(f"{m} {c}/{n}" for m, (c, _, _) in stats.items()))
    print(f"{label}_prompt_tokens: " + " | ".join(f"{m} {t}" for m, (_, t, _) in stats.items()))
    print(f"{label}_wall_s: " + " | ".join(f"{m} {w:.0f}" for m, (_, _, w) in stats.items()))
    return right


def first_vote_vs_final(methods: Methods, items: list[tuple[str, int]], right: dict[str, list[bool]]) -> None:
    """What the debate did to the council's first vote: the verdicts as the answers state them, and the items it
    fixed (first vote wrong, final right) or broke (first vote right, final wrong)."""
    verdicts = Counter(methods.verdicts.get(q, "no_vote") for q, _ in items)
    print("arithmetic_debate: " + " | ".join(f"{v} {verdicts.get(v, 0)}" for v in
                                              ("confirmed", "overturned", "no_debate", "no_vote")))
    pairs = list(zip(right["first_vote"], right["council"], strict=True))
    print(f"arithmetic_first_vote_vs_final: first vote {sum(a for a, _ in pairs)}/{len(pairs)} | final "
          f"{sum(b for _, b in pairs)}/{len(pairs)} | debate fixed {sum(b and not a for a, b in pairs)} | "
          f"debate broke {sum(a and not b for a, b in pairs)}")


async def main(ns: argparse.Namespace) -> int:
    try:
        return await run(ns)
    except (Unusable, ConfigError) as err:
        print(f"quality: {err}", file=sys.stderr)
        return UNUSABLE


async def run(ns: argparse.Namespace) -> int:
    cfg = ProviderConfig(kind=ns.provider, model=ns.model or "", base_url=ns.base_url, api_key=ns.api_key_env)
    count, how = token_counter()
    provider = Recording(build_provider(cfg), count)
    personas = [p.strip() for p in ns.personas.split(",") if p.strip()]
    mixed = [(spec, Recording(build_provider(spec), count)) for spec in mixed_specs(ns.mixed or "", ns.api_key_env)]
    endpoints = [provider, *(rec for _, rec in mixed)]
    for rec in endpoints:
        await rec.usable()
    methods = Methods(provider, ns.samples, personas, ns.max_cycles, mixed)
    items = arithmetic(ns.arithmetic, ns.seed)
    clar = CLARIFICATION[: ns.clarification]
    print(f"quality: {provider.describe()}; {len(items)} arithmetic items (a+b*c+d-e*f, integers 0-30, seed "
          f"{ns.seed}), {len(clar)} clarification items ({sum(1 for _, k in clar if not k)} clear controls); "
          f"majority of {ns.samples} samples; council of {len(personas)} ({', '.join(personas)}), at most "
          f"{ns.max_cycles} cycles, brief depth; tokens: {how}"
          + (f"; mixed council over {', '.join(rec.describe() for _, rec in mixed)}" if mixed else ""))
    began = time.perf_counter()

    async def arith(method: str, item: tuple[str, int]) -> bool:
        return await methods.arithmetic(method, item[0]) == item[1]

    async def clarify(method: str, item: tuple[str, tuple[str, ...]]) -> bool:
        return await methods.clarification(method, *item)

    right = await measure("arithmetic", methods, items, arith, extra=("first_vote",))
    first_vote_vs_final(methods, items, right)
    if clar:
        await measure("clarification", methods, clar, clarify)
    for rec in endpoints:
        await rec.inner.aclose()
    print(f"quality_wall_s: {time.perf_counter() - began:.0f}")
    dead = [rec for rec in endpoints if rec.calls and rec.failures == rec.calls]
    if dead:
        raise Unusable("; ".join(f"{rec.where()} failed every call it got ({rec.failures}): {rec.error}"
                                 for rec in dead))
    return 0


def mixed_specs(text: str, api_key_env: str | None) -> list[ProviderConfig]:
    """``kind:model[@base_url]`` specs (comma-separated; the model may hold colons) → provider configs, as
    ``council ask --models`` reads them (an ``openai`` one's key from ``api_key_env``, else ``OPENAI_API_KEY``)."""
    out = []
    for spec in (x.strip() for x in text.split(",") if x.strip()):
        head, _, base_url = spec.partition("@")
        kind, _, model = head.partition(":")
        if kind not in ("openai", "ollama", "embedded", "scripted"):
            raise ConfigError(f"--mixed: {spec!r} is not kind:model[@base_url] with a kind one of openai, ollama, "
                              "embedded, scripted")
        out.append(adhoc_provider(kind, model, base_url=base_url or None, api_key_env=api_key_env))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--provider", default="embedded", choices=["embedded", "openai", "ollama", "scripted"])
    parser.add_argument("--model", help="model name (or a GGUF path for embedded)")
    parser.add_argument("--base-url", help="base URL of an OpenAI-compatible or Ollama server")
    parser.add_argument("--api-key-env", help="name of the environment variable holding the API key")
    parser.add_argument("--arithmetic", type=int, default=3, help="arithmetic items (default 3)")
    parser.add_argument("--clarification", type=int, default=len(CLARIFICATION), help="clarification items")
    parser.add_argument("--samples", type=int, default=3, help="samples of the majority vote (default 3)")
    parser.add_argument("--personas", default=",".join(PERSONAS), help="the council, comma-separated")
    parser.add_argument("--max-cycles", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2023)
    parser.add_argument("--mixed", help="kind:model[@base_url] specs: also run the council seated over them")
    sys.exit(anyio.run(main, parser.parse_args()))
