"""A deterministic scripted model for tests, demos and fault injection.

Without a script it answers every council prompt with a valid reply built from the requested schema's title, the
caller's ``purpose`` (persona name) and the cycle (:func:`auto_reply`). A JSON script adds rules, first match wins::

    {"chunk": 24, "delay": 0.0, "trace": "/path",
     "rules": [{"when": {"schema": "PersonaReply", "purpose": "Security Expert", "cycle": 2, "contains": "…",
                         "anywhere": "…"},
                "reply": {...} | "raw text", "error": "rate_limit|server|…", "wrap": true, "delay": 0.5, "times": 1}]}

``usage`` (top level or in a rule: ``{"input_tokens": 30, "output_tokens": 10, "cost_usd": 0.01,
"premium_requests": 1}``) is reported as what each call used, as an agent CLI reports it. ``contains`` looks at the
last message, ``anywhere`` at every message. ``times`` limits how often a rule fires (to
script "500 then success"). ``error`` injects a fault as the HTTP providers or a client report it (:func:`fault`);
``wrap`` raises it inside an ``ExceptionGroup``, as a task group would. ``parallel`` (top level, a whole number of at
least 1) declares how many calls its model runs at once, as a server says it (the double does not queue them); without
it there is no limit (its calls are only awaits). A scripted vote (``option_id``) in the cycle
that asks whom a persona backs becomes a backing (:func:`backing`). ``trace`` appends one JSON line per call start,
end and cancellation (how tests prove that cancelling a session stops every model call).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio

from council.providers.base import CompletionRequest, Provider, ProviderError, ProviderStatus, Usage, report_usage

if sys.version_info < (3, 11):  # pragma: no cover - the backport anyio depends on
    from exceptiongroup import ExceptionGroup

_DROPPED = "RemoteProtocolError: Server disconnected without sending a response."
_ERRORS = {  # name: (message, retryable, HTTP status); the error's kind is its name
    "rate_limit": ("scripted rate limited (HTTP 429)", True, 429),
    "server": ("scripted server error (HTTP 500)", True, 500),
    "timeout": ("scripted timed out", True, None),
    "client": ("scripted bad request (HTTP 400)", False, 400),
    # the server dropped the connection (it may answer the next request); nothing listens (or no such host)
    "connection": (f"cannot reach scripted at http://127.0.0.1:9/v1 ({_DROPPED})", True, None),
    "unreachable": ("cannot reach scripted at http://127.0.0.1:9/v1 (ConnectError: connection refused)", True, None),
    # what a client says of its model
    "model_unavailable": ("the client's model failed: model_unavailable", False, None),
    "no_consent": ("the client's model failed: no_consent", False, None),
}
_STATUS = {"overloaded": (529, "Overloaded"), "unavailable": (503, "Service Unavailable"),
           "unauthorized": (401, "invalid x-api-key"), "forbidden": (403, "permission denied"),
           "not_found": (404, "model not found")}


def fault(name: str) -> ProviderError:
    """The ProviderError a scripted ``error`` rule raises."""
    if name in _STATUS:
        from council.providers.http_common import error_from_status  # httpx: only when a script asks for it

        status, said = _STATUS[name]
        return error_from_status("scripted", status, json.dumps({"error": {"message": said}}))
    message, retryable, status = _ERRORS[name]
    return ProviderError(message, kind=name, retryable=retryable, status=status)


class ScriptedProvider(Provider):
    id = "scripted"
    constrains_json = True

    def __init__(self, model: str = "scripted", script: str | dict[str, Any] | None = None) -> None:
        super().__init__(model or "scripted")
        data: dict[str, Any] = {}
        if isinstance(script, dict):
            data = script
        elif script:
            data = json.loads(Path(script).read_text(encoding="utf-8"))
        self.rules: list[dict[str, Any]] = list(data.get("rules", []))
        self.chunk = int(data.get("chunk", 24))
        self.delay = float(data.get("delay", 0.0))
        self.trace = data.get("trace")
        self.usage: dict[str, Any] | None = data.get("usage")
        parallel = data.get("parallel")
        self.parallel = int(parallel) if parallel is not None else None
        self.calls: list[CompletionRequest] = []
        self._fired: dict[int, int] = {}

    async def check(self) -> ProviderStatus:
        return ProviderStatus(available=True, detail="deterministic scripted replies (for tests and demos)")

    async def parallel_calls(self) -> int | None:
        """What the script declares (``parallel``); None, no limit, when it declares nothing."""
        return self.parallel

    def _match(self, request: CompletionRequest) -> dict[str, Any] | None:
        title = (request.json_schema or {}).get("title", "")
        last = request.messages[-1].content if request.messages else ""
        asked = {"schema": title, "purpose": request.purpose, "cycle": request.cycle}
        for i, rule in enumerate(self.rules):
            when = rule.get("when", {})
            if any(key in when and when[key] != value for key, value in asked.items()):
                continue
            if "contains" in when and when["contains"] not in last:
                continue
            if "anywhere" in when and not any(when["anywhere"] in m.content for m in request.messages):
                continue
            if "times" in rule and self._fired.get(i, 0) >= rule["times"]:
                continue
            self._fired[i] = self._fired.get(i, 0) + 1
            return rule
        return None

    def _trace(self, event: str, request: CompletionRequest) -> None:
        if self.trace:
            with open(self.trace, "a", encoding="utf-8") as f:
                f.write(json.dumps({"event": event, "purpose": request.purpose, "cycle": request.cycle}) + "\n")

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        self._trace("start", request)
        self.calls.append(request)
        rule = self._match(request) or {}
        delay = float(rule.get("delay", self.delay))
        try:
            if rule.get("error"):
                if delay:
                    await anyio.sleep(delay)
                err = fault(rule["error"])
                if rule.get("wrap"):
                    raise ExceptionGroup("unhandled errors in a TaskGroup", [err])
                raise err
            reply = rule.get("reply")
            if reply is None:
                reply = auto_reply(request)
            elif isinstance(reply, dict) and "backs" in (request.json_schema or {}).get("properties", {}):
                reply = backing(reply, request)
            text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
            step = max(1, self.chunk)
            for i in range(0, len(text), step):
                await anyio.sleep(delay)  # 0: a checkpoint, so a cancelled caller stops the stream
                yield text[i:i + step]
            usage = rule.get("usage", self.usage)
            if usage:
                report_usage(Usage.read(**usage))
        except anyio.get_cancelled_exc_class():
            self._trace("cancelled", request)
            raise
        self._trace("end", request)


def _items(schema: dict[str, Any], field: str, make, owed: bool = True) -> list[str]:
    """As many items as the schema requires (one where it says nothing). Where it lets the list be empty — a later
    debate cycle, whose empty lists are the persona's earlier ones — none, unless they are ``owed`` (the persona has
    no earlier position to stand on): then as many as it allows, as the cycle's rules ask."""
    spec = schema.get("properties", {}).get(field, {})
    n = spec.get("minItems", 1)
    if n == 0 and owed:
        n = spec.get("maxItems", 1)
    return [make(i + 1) for i in range(n)]


OPTION_LABELS = [("Staged approach", "Proceed in small, measured steps."),
                 ("Wait", "Postpone until more information is available."),
                 ("Third way", "A third course of action."), ("Fourth way", "A fourth course of action.")]
_ADVISOR = re.compile(r"^- Advisor (\d+) (.*)$", re.MULTILINE)
_PEER = re.compile(r"^- Advisor ([A-Z]) \[[^\]]*\]: (.*)$", re.MULTILINE)  # an advisor in a persona's digest
_SELF = re.compile(r"^You are Advisor ([A-Z]) in the list above\b", re.MULTILINE)  # the persona's own line there
_OWN = re.compile(r"^You are Advisor [A-Z] in the list above: that line is your previous position\.", re.MULTILINE)
_OWN_REC = re.compile(r"^Your recommendation: (.*)$", re.MULTILINE)  # an unplaced advisor asked for its option
_PREFERS = re.compile(r"prefers option ([A-D])")
_OUTCOME = re.compile(r"Outcome \(fixed by the rules\): (\w+)")
AXES = ("assumptions", "applicability", "code_correctness", "realistic_newness", "overfitting", "implications")


def role_reply(who: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A review role's approval: every checklist item passes, every axis scores 7."""
    n = schema.get("properties", {}).get("checklist", {}).get("minItems", 1)
    return {"checklist": [{"answer": f"Yes: {who} sees no problem here.", "passed": True} for _ in range(n)],
            "concerns": [], "blocking_issues": [], "required_actions": [],
            **{f"score_{axis}": 7.0 for axis in AXES}, "verdict": "APPROVE", "confidence_score": 0.8}


def placed(recommendation: str) -> str:
    """The option the scripted moderator places a recommendation under: X when it says "prefers option X", else B
    for the Devil's Advocate's and A for everyone else's."""
    said = _PREFERS.search(recommendation)
    return said.group(1) if said else ("B" if "devil" in recommendation.lower() else "A")


def options_reply(prompt: str) -> dict[str, Any]:
    """Options with their supporters, read off the numbered recommendations in the moderator's prompt (each
    :func:`placed`; as many options as the letters used, at least two)."""
    choice: dict[int, str] = {}
    for m in _ADVISOR.finditer(prompt):
        choice[int(m.group(1))] = placed(m.group(2))
    count = max([2, *("ABCD".index(c) + 1 for c in choice.values())])
    return {"options": [{"label": label, "description": text,
                         "supporters": [n for n, c in choice.items() if c == "ABCD"[i]]}
                        for i, (label, text) in enumerate(OPTION_LABELS[:count])]}


def own_choice(prompt: str, schema: dict[str, Any]) -> str:
    """An unplaced advisor's own option: the one its recommendation in the prompt names ("… prefers option B …", as
    :func:`placed` reads it) when the schema offers it, else the first option."""
    letters = schema.get("properties", {}).get("option_id", {}).get("enum") or ["A"]
    own = _OWN_REC.search(prompt)
    said = _PREFERS.search(own.group(1)) if own else None
    return said.group(1) if said and said.group(1) in letters else letters[0]


def clarifier_reply(prompt: str) -> dict[str, Any]:
    """Two questions (one in later rounds) whose likely answers favour different candidates."""
    round_no = next((n for n in (3, 2) if f"clarification round {n}" in prompt), 1)
    questions = [  # each answer favours another candidate: both questions change the recommendation
        {"question": f"What is the main goal behind this request (round {round_no})?",
         "target_ambiguity": "goal", "choices": [{"answer": "Cut costs", "favours": "B"},
                                                 {"answer": "Ship faster", "favours": "C"},
                                                 {"answer": "Reduce risk", "favours": "A"}],
         "default_assumption": "The main goal is to ship faster without raising risk."},
        {"question": f"What timeline are you working with (round {round_no})?",
         "target_ambiguity": "timeline", "choices": [{"answer": "This quarter", "favours": "C"},
                                                     {"answer": "This year", "favours": "A"}],
         "default_assumption": "The timeline is this quarter."},
    ]
    return {"needs_clarification": True,
            "candidates": ["Staged approach", "Wait", "Split now"],
            "questions": questions if round_no == 1 else questions[:1]}


def synthesis_reply(schema: dict[str, Any]) -> dict[str, Any]:
    """The chair's answer; the first assumption (when the chair is shown any) is the one it hinges on."""
    hinges = [{"assumption": 1, "recommendation_depends": True, "criticality": "high",
               "if_false": "Wait until more information is available."}]
    return {"recommendation": "Take the staged approach and measure each step.",
            "agreements": ["Start small."], "conflicts": ["Whether to wait first."],
            "risks_tradeoffs": ["Delivery could stall."], "next_steps": ["Pick a first slice.", "Measure it."],
            "notes": [], **({"hinges": hinges} if "hinges" in schema.get("properties", {}) else {})}


def backing(reply: dict[str, Any], request: CompletionRequest) -> dict[str, Any]:
    """A reply scripted with a vote (``option_id``) for the cycle that runs beside the options call, which asks
    whose recommendation the persona backs instead: its own when the scripted moderator places its previous
    position (its own line in the digest) under that option, else the first other advisor's in its digest placed
    there, as a model voting so would."""
    if "backs" in reply or "option_id" not in reply:
        return {k: v for k, v in reply.items() if k != "option_id"} | {"backs": reply.get("backs", "own")}
    prompt = request.messages[-1].content if request.messages else ""
    option = reply["option_id"]
    me = _SELF.search(prompt)
    lines = {m.group(1): m.group(2) for m in _PEER.finditer(prompt)}
    own = lines.pop(me.group(1), None) if me is not None else None
    backs = "own" if own is not None and placed(own) == option else next(
        (letter for letter, said in lines.items() if placed(said) == option), "own")
    return {k: v for k, v in reply.items() if k != "option_id"} | {"backs": backs}


def auto_reply(request: CompletionRequest) -> dict[str, Any]:
    """A valid reply for the schema the request names, deterministic in purpose and cycle."""
    schema = request.json_schema or {}
    title = schema.get("title", "")
    who, cycle = request.purpose, request.cycle
    prompt = request.messages[-1].content if request.messages else ""
    if title == "ClarifierReply":
        return clarifier_reply(prompt)
    if title == "PersonaReply":
        owed = _OWN.search(prompt) is None  # no earlier position of its own: its lists are not carried
        reply = {
            "position": f"{who} recommends a staged approach (cycle {cycle}).",
            "summary": _items(schema, "summary", lambda i: f"{who} summary point {i}.", owed),
            "advice": _items(schema, "advice", lambda i: f"{who} advice {i}: start small and measure.", owed),
            "risks": [f"{who} risk: the change could stall delivery."],
            "assumptions": ["The team has capacity for the change."],
            "questions": [],
            "next_steps": _items(schema, "next_steps", lambda i: f"{who} step {i}.", owed),
            "confidence": "medium",
            "confidence_rationale": "Scripted reply for a deterministic session.",
            "changed_position": False,
            "change_reason": "",
            "continue_debate": cycle < 2,
        }
        options = schema.get("properties", {}).get("option_id", {}).get("enum")
        contrarian = "devil" in who.lower()
        reply["vote_confidence"] = 0.6 if contrarian else 0.8
        if options:  # debate cycles carry a vote: the Devil's Advocate takes the second option
            reply["option_id"] = options[1] if contrarian and len(options) > 1 else options[0]
        elif "backs" in schema.get("properties", {}):  # beside the options call: each backs its own recommendation
            reply["backs"] = "own"
        else:  # the independent cycle: a recommendation (the moderator turns it into the first vote)
            del reply["changed_position"], reply["change_reason"]
        return reply
    if title == "OptionsReply":
        return options_reply(prompt)
    if title == "OptionChoice":
        return {"option_id": own_choice(prompt, schema)}
    if title == "FollowUpReply":
        asked = prompt.rsplit("follow-up question:\n", 1)[-1].strip()
        return {"answer": f"On “{asked}”: the council recommended a staged approach; the Devil's Advocate "
                          "warned that it could stall delivery."}
    if title == "RoleReply":
        return role_reply(who, schema)
    if title == "ChairReply":
        found = _OUTCOME.search(prompt)
        outcome = found.group(1) if found else "APPROVE"
        return {"summary_reasoning": f"The council's outcome is {outcome}, as its rules decide from the verdicts "
                                     "and the axis scores."}
    if title == "SynthesisReply":
        return synthesis_reply(schema)
    return {"text": "scripted"}
