"""The side-by-side workloads (issues 11, 24): 6 personas × 5 rounds and 3 × 3, the same ~1.5k-char reply content,
0.5 s per call.

Both engines get the same content. Council gets it as the JSON its schema asks for (only the keys the schema
lists); AI Counsel gets the same fields as markdown prose ending in its ``VOTE: {...}`` line. Votes never settle:
of six, four personas back A and two back B (of three, one A and two B), and two of them swap sides every round, so
both engines run every round. Where Council's schema asks whose recommendation a persona backs (the cycle that
runs beside the moderator's options call), the persona names the advisor whose position is the plan it votes for.
AI Counsel's summary call (its ``claude`` summarizer, as a real install with that CLI runs it) gets a prose summary
in its format.

``FakeModel`` answers with a fixed latency (optionally plus a prefill cost per 1,000 prompt characters, the same
function for both engines: ``bench/sidebyside.py --prefill``), optionally streaming the reply in small deltas paced
over that latency (first delta at 40 %, the rest in evenly spaced bursts), and records every call's prompt size and
timing, so a run can report prompt characters and the number of model-call *stages* (waves of calls that overlap in
time).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio

from council.providers.base import inline_refs

SIX = ["Software Architect", "Senior Developer", "Security Expert", "Reliability Engineer", "Product Manager",
       "Devil's Advocate"]
THREE = ["Software Architect", "Security Expert", "Devil's Advocate"]
ROUNDS = 5
LATENCY = 0.5
T = TypeVar("T")


@dataclass(frozen=True)
class Workload:
    name: str
    personas: list[str]
    rounds: int


WORKLOADS = {w.name: w for w in (Workload("6x5", SIX, 5), Workload("3x3", THREE, 3))}
QUESTION = ("Should we split our billing monolith into services this quarter, given a team of eight, a hard "
            "audit deadline in ten weeks and a checkout outage last month?")
PLANS = {"A": "Split incrementally: extract the billing module first behind a facade, then measure.",
         "B": "Keep the monolith this quarter: harden it for the audit and revisit the split next quarter."}
SWAPPERS = ("Software Architect", "Security Expert")


def vote_of(name: str, cycle: int) -> str:
    """A for four personas, B for two; the two swappers trade sides every round."""
    first = "B" if name in ("Security Expert", "Devil's Advocate") else "A"
    if name in SWAPPERS and cycle % 2 == 0:
        return "B" if first == "A" else "A"
    return first


def content(name: str, cycle: int) -> dict[str, Any]:
    """The reply fields of one persona in one round (~1.5k characters as JSON)."""
    plan = PLANS[vote_of(name, cycle)]
    return {
        "position": f"{plan} ({name}, round {cycle})",
        "summary": [f"Point {i}: billing seams, team load and audit scope."
                    for i in range(1, 6)],
        "advice": [f"Advice {i}: cut one bounded context, keep the audit trail intact."
                   for i in range(1, 6)],
        "risks": [f"Risk {i}: split ownership stalls delivery before the audit."
                  for i in range(1, 4)],
        "assumptions": ["The team of eight has one squad free for the work."],
        "questions": [],
        "next_steps": [f"Step {i}: map the billing tables and their owners." for i in range(1, 6)],
        "confidence": "medium",
        "confidence_rationale": "Enough signal to act, not enough to be sure about the audit scope.",
        "continue_debate": True,
    }


def persona_reply(schema: dict[str, Any], name: str, cycle: int, prompt: str = "") -> dict[str, Any]:
    """The content as the PersonaReply ``schema`` asks for it: only the keys it lists, the vote where asked (as an
    option, or as whose recommendation it backs: its own, or the advisor's whose position is that plan)."""
    props = schema.get("properties", {})
    reply = {k: v for k, v in content(name, cycle).items() if k in props}
    option = vote_of(name, cycle)
    moved = cycle > 1 and option != vote_of(name, cycle - 1)
    backs = "own" if not moved else next((m.group(1) for m in ADVISOR_LINE.finditer(prompt)
                                          if PLANS[option] in m.group(2)), "own")
    extra = {"option_id": option, "backs": backs, "vote_confidence": 0.7, "changed_position": moved,
             "change_reason": "a new cost argument from another advisor" if moved else ""}
    reply.update({k: v for k, v in extra.items() if k in props})
    return reply


ADVISOR_LINE = re.compile(r"^\W*Advisor (\w+)\b(.*)$", re.MULTILINE)


def options_reply(schema: dict[str, Any], prompt: str) -> dict[str, Any]:
    """The moderator's options; where the schema asks which advisors support each option, read them off the
    advisors' positions listed in the prompt."""
    options = [{"label": "Split billing incrementally", "description": PLANS["A"]},
               {"label": "Keep the monolith this quarter", "description": PLANS["B"]}]
    item = inline_refs(schema)["properties"]["options"]["items"].get("properties", {})
    if "supporters" in item:
        for opt, plan in zip(options, PLANS.values(), strict=True):
            opt["supporters"] = [_label(m.group(1)) for m in ADVISOR_LINE.finditer(prompt) if plan in m.group(2)]
    return {"options": options}


def _label(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def council_reply(title: str, schema: dict[str, Any], purpose: str, cycle: int, prompt: str) -> dict[str, Any]:
    if title == "PersonaReply":
        return persona_reply(schema, purpose, cycle, prompt)
    if title == "OptionsReply":
        return options_reply(schema, prompt)
    if title == "SynthesisReply":
        return {"recommendation": PLANS["A"], "agreements": [f"agreement {i} on scope" for i in range(4)],
                "conflicts": ["whether the audit allows a split now"],
                "risks_tradeoffs": [f"trade-off {i}: speed against audit risk" for i in range(4)],
                "next_steps": [f"step {i}: do the next concrete thing" for i in range(5)], "notes": []}
    if title == "ClarifierReply":
        return {"needs_clarification": False, "reason": "clear", "questions": []}
    raise ValueError(f"unknown reply kind {title!r}")


def aicounsel_summary() -> str:
    """AI Counsel's summarizer reply in the format its prompt asks for (about the size of Council's synthesis)."""
    return ("CONSENSUS:\nNo clear consensus reached: four advisors split billing incrementally, two keep the "
            "monolith for the audit.\n\nKEY AGREEMENTS:\n" + "\n".join(f"- agreement {i} on scope" for i in range(4))
            + "\n\nKEY DISAGREEMENTS:\n- whether the audit allows a split now\n\nFINAL RECOMMENDATION:\n"
            + PLANS["A"] + " " + " ".join(f"Step {i}: do the next concrete thing." for i in range(5)))


def aicounsel_reply(name: str, cycle: int) -> str:
    """The same content as prose, with AI Counsel's vote line."""
    c = content(name, cycle)
    parts = [c["position"]]
    for key in ("summary", "advice", "risks", "assumptions", "next_steps"):
        parts.append(key.replace("_", " ").title() + ":\n" + "\n".join(f"- {x}" for x in c[key]))
    parts.append(f"Confidence: {c['confidence']}. {c['confidence_rationale']}")
    vote = {"option": f"Option {vote_of(name, cycle)}", "confidence": 0.7,
            "rationale": "a new cost argument from another advisor", "continue_debate": True}
    return "\n\n".join(parts) + "\n\nVOTE: " + json.dumps(vote)


BURSTS = 8


async def _sleep_until(deadline: float) -> None:
    wait = deadline - time.perf_counter()
    if wait > 0:
        await anyio.sleep(wait)


@dataclass
class Call:
    purpose: str
    kind: str
    prompt_chars: int
    started: float
    ended: float = 0.0
    text: str = ""


@dataclass
class FakeModel:
    """Fixed latency, optional paced streaming, and a record of every call."""

    latency: float = LATENCY
    chunk: int = 0  # delta size in characters; 0 = the whole reply in one delta
    prefill: float = 0.0  # extra seconds per 1,000 prompt characters (0 = the fixed latency alone)
    calls: list[Call] = field(default_factory=list)
    build_cpu: float = 0.0  # CPU seconds the fake client spent building its replies (:meth:`build`)
    _cycles: dict[str, int] = field(default_factory=dict)

    def build(self, make: Callable[..., T], *args: Any) -> T:
        """``make(*args)``: a reply the fake client writes (Council's JSON, AI Counsel's prose), its CPU counted in
        ``build_cpu``: a real client's model writes it, not the engine, so both engines' CPU figures subtract it."""
        cpu = time.process_time()
        try:
            return make(*args)
        finally:
            self.build_cpu += time.process_time() - cpu

    def next_cycle(self, purpose: str) -> int:
        self._cycles[purpose] = self._cycles.get(purpose, 0) + 1
        return self._cycles[purpose]

    async def respond(self, purpose: str, kind: str, prompt_chars: int, text: str,
                      on_delta: Callable[[str], Awaitable[None]] | None) -> str:
        """Answer after ``latency`` (plus ``prefill`` × the prompt's thousands of characters, read first): the
        first delta at 40 % of ``latency`` after that, the rest in ``BURSTS`` evenly spaced bursts (deltas arrive
        in packets of several tokens)."""
        call = Call(purpose, kind, prompt_chars, time.perf_counter(), text=text)
        self.calls.append(call)
        pieces = [text] if self.chunk <= 0 else [text[i:i + self.chunk] for i in range(0, len(text), self.chunk)]
        per_burst = -(-len(pieces) // BURSTS)
        bursts = [pieces[i:i + per_burst] for i in range(0, len(pieces), per_burst)]
        read = self.prefill * prompt_chars / 1000
        first, step = call.started + read + self.latency * 0.4, self.latency * 0.6 / len(bursts)
        for n, burst in enumerate(bursts):
            await _sleep_until(first + n * step)
            if on_delta is not None:
                for piece in burst:
                    await on_delta(piece)
        await _sleep_until(call.started + read + self.latency)
        call.ended = time.perf_counter()
        return text

    def prompt_chars(self) -> int:
        return sum(c.prompt_chars for c in self.calls)

    def stages(self) -> int:
        """Waves of model calls: a call that starts after every earlier call ended opens a new stage."""
        count, end = 0, float("-inf")
        for c in sorted(self.calls, key=lambda c: c.started):
            if c.started >= end:
                count += 1
            end = max(end, c.ended)
        return count

    def by_kind(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for c in self.calls:
            n, chars = out.get(c.kind, (0, 0))
            out[c.kind] = (n + 1, chars + c.prompt_chars)
        return out


async def replay_cpu(like: FakeModel, calls: list[Call]) -> float:
    """CPU seconds of the fake model alone replaying a session's calls (same texts, same deltas, same stages, a
    no-op consumer) plus what its client spent building the replies (``like.build_cpu``): subtracted from a
    session's CPU, it leaves the engine's (Council's, and AI Counsel's beside it, measured alike)."""
    model = FakeModel(latency=like.latency, chunk=like.chunk)

    async def nothing(_: str) -> None:
        return None

    stages: list[list[Call]] = []
    end = float("-inf")
    for call in sorted(calls, key=lambda c: c.started):  # the session's stages: calls that overlapped in time
        if stages and call.started < end:
            stages[-1].append(call)
        else:
            stages.append([call])
        end = max(end, call.ended)
    cpu = time.process_time()
    for stage in stages:
        async with anyio.create_task_group() as tg:
            for call in stage:
                tg.start_soon(model.respond, "x", call.kind, 0, call.text, nothing)
    return time.process_time() - cpu + like.build_cpu
