"""Cases for the sidecar fuzzer: random and boundary messages and frames, each knowing what it must be answered with.

A :class:`Case` is raw bytes plus the ids it owes: ``expected`` (a request in a well-formed frame with a usable id:
exactly one response) and ``maybe`` (its frame was damaged on purpose: at most one). Ids are unique over a run, so a
second response to one is a bug, and so is a response to an id no case sent.
The shapes: every ``council/*`` method with each param (and nested field of the base params) replaced by a value of
another JSON type, random params, the LSP methods, ids of every JSON type, notifications, responses, batches,
envelopes that are not JSON-RPC, lone surrogates and huge numbers, and damaged frames (bad headers, wrong lengths,
junk, non-UTF-8, truncation). :class:`Fuzzer` is seeded: the same seed gives the same bytes.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from council.protocol.methods import METHODS
from tests.review.review_helpers import SEED_REQUEST

from .raw import frame

PROBLEM = "Should we split our billing monolith into services this quarter?"

# One valid (or nearly valid) params object per method: each case changes one field of it.
BASE_PARAMS: dict[str, dict[str, Any]] = {
    "council/turn": {"text": PROBLEM, "options": {"clarify": True, "maxCycles": 1, "personas": ["Security Expert"]},
                     "references": [{"name": "a.md", "content": "notes"}], "client": {"completion": False}},
    "council/answer": {"sessionId": "no-such-session", "questionId": "q1", "action": "answer", "text": "yes",
                       "idempotencyKey": "k1"},
    "council/stop": {"sessionId": "no-such-session"},
    "council/cancel": {"sessionId": "no-such-session"},
    "council/snapshot": {"sessionId": "no-such-session", "includeJournal": True},
    "council/restore": {"sessionId": "restored", "journal": [{"kind": "session.created"}], "lastSeq": 0},
    "council/personas": {},
    "council/providers": {},
    "council/consult": {"user_problem": PROBLEM, "depth": "brief", "constraints": ["small team"],
                        "selected_personas": ["Security Expert"]},
    "council/personaConsult": {"user_problem": PROBLEM, "persona_name": "Security Expert", "depth": "brief"},
    "council/definePersonas": {"overrides": [{"persona": "Security Expert", "focus": ["x"]}]},
    "council/consultPlan": {"user_problem": PROBLEM, "depth": "brief"},
    "council/reviewPlan": {"changeType": "CODE_REFACTOR"},
    "council/review": {"request": SEED_REQUEST, "timeoutSeconds": 30},
}
assert set(BASE_PARAMS) == {m.name for m in METHODS}, "a method without base params: add it"
SCHEMA_FIELDS = {m.name: list(m.params.model_json_schema(by_alias=True).get("properties", {})) for m in METHODS}
LSP_REQUESTS = ["initialize", "exit", "initialized", "$/cancelRequest", "$/setTrace", "textDocument/hover",
                "workspace/symbol", "council/dance", "council/", "", "council/complete", "council/event",
                "council/completeDelta", "Council/Turn", "council/turn ", "council/turn\x00", "council/\ud800"]
# Damaged frames; the LENIENT ones are well-formed after all (the reader accepts them, or resynchronises before them)
FRAME_KINDS = ["lower header", "lf only", "extra headers", "blank lines", "long", "junk before", "short", "bad length",
               "no length", "two lengths", "not utf-8", "truncated", "header only junk", "nan body", "deep body",
               "huge number"]
LENIENT = FRAME_KINDS[:6]
BAD_LENGTHS = [b"Content-Length: -%d\r\n\r\n", b"Content-Length: %d.0\r\n\r\n", b"Content-Length: 0x%x\r\n\r\n",
               b"Content-Length: +%d\r\n\r\n", b"Content-Length: %d\x00\r\n\r\n"]
NOTIFICATIONS = ["initialized", "$/cancelRequest", "$/setTrace", "$/logTrace", "$/progress", "council/completeDelta",
                 "council/event", "council/turn", "council/dance", "workspace/didChangeConfiguration", "shutdown"]


def key(msg_id: Any) -> tuple[bool, Any]:
    """A response id as a dict key (1 and "1" differ)."""
    return isinstance(msg_id, str), msg_id


@dataclass
class Case:
    kind: str
    data: bytes
    expected: list[Any] = field(default_factory=list)
    maybe: list[Any] = field(default_factory=list)
    damaged: bool = False  # may swallow the frames after it: sent last in a batch


class Fuzzer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.serial = 0

    # --- values ---------------------------------------------------------------------------------------------
    def new_id(self) -> Any:
        """A usable id no case used before (string or integer, some odd)."""
        self.serial += 1
        n, r = self.serial, self.rng.random()
        if r < 0.45:
            return f"f{n}"
        if r < 0.75:
            return 1_000_000 + n
        return self.rng.choice([-n, 2**64 + n, 10**30 + n, f"f{n}\ud800", f"f{n}\udfff\u00e9", f"f{n}" + "i" * 3000,
                                f"{n}", f"f{n}\n\"\\", f"f{n}\x00", f"\U0001f600{n}"])

    def bad_id(self) -> Any:
        """An id that is not a string or an integer (answered with id null)."""
        return self.rng.choice([None, True, False, 1.5, -0.0, 1e300, 1.0, {}, {"id": 1}, [], [1], [self.serial],
                                {"a": [None]}])

    def scalar(self) -> Any:
        return self.rng.choice([
            None, True, False, 0, -1, 1, 2**31, 2**63, -(2**63) - 1, 10**40, 1.5, -1e-300, 1e308, 1e-320, "", " ",
            "x", "\ud800", "\udfff", "a\ud83d", "\U0001f600", "\u202e", "\x00", "\n" * 3, "x" * 100_000,
            "Content-Length: 5\r\n\r\n{}", '{"jsonrpc": "2.0", "id": 1, "method": "exit"}', "null", "NaN",
            "../../etc/passwd", "%s%s%n", "\\u0000", "2025-13-45T99:00:00Z", "Security Expert", "brief", "skip all",
        ])

    def value(self, depth: int = 0) -> Any:
        """Any JSON value, sometimes nested or deep."""
        r = self.rng.random()
        if depth > 3 or r < 0.55:
            return self.scalar()
        if r < 0.7:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        if r < 0.85:
            keys = ["id", "method", "params", "jsonrpc", "text", "sessionId", "\ud800", "", "__proto__", "constructor"]
            return {self.rng.choice(keys): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}
        nested: Any = self.scalar()
        for _ in range(self.rng.choice([50, 400, 900])):  # deep, below the decoder's limit
            nested = [nested] if self.rng.random() < 0.5 else {"a": nested}
        return nested

    def wrong(self, current: Any) -> Any:
        """A value of another JSON type than ``current`` (or a boundary value of the same type)."""
        candidates = [self.value() for _ in range(4)]
        other = [c for c in candidates if type(c) is not type(current)]
        return self.rng.choice(other or candidates)

    # --- params ---------------------------------------------------------------------------------------------
    def params_for(self, method: str) -> Any:
        base = copy.deepcopy(BASE_PARAMS[method])
        r = self.rng.random()
        if r < 0.08:
            return self.value()  # anything at all (a non-object is refused before pygls)
        if r < 0.25:
            name = self.rng.choice(SCHEMA_FIELDS[method] or ["extra"])
            base[name] = self.wrong(base.get(name))
            return base
        paths = list(_paths(base))
        if not paths:
            base[self.rng.choice(["x", "text", "\ud800"])] = self.value()
            return base
        _set(base, self.rng.choice(paths), self.wrong)
        return base

    # --- cases ----------------------------------------------------------------------------------------------
    def case(self) -> Case:
        makers: list[tuple[float, Callable[[], Case]]] = [
            (0.40, self.method_case), (0.08, self.lsp_case), (0.08, self.bad_id_case), (0.10, self.notification_case),
            (0.06, self.response_case), (0.07, self.batch_case), (0.08, self.envelope_case), (0.13, self.frame_case),
        ]
        r = self.rng.random()
        for weight, make in makers:
            if r < weight:
                return make()
            r -= weight
        return makers[-1][1]()

    def method_case(self) -> Case:
        method = self.rng.choice(list(BASE_PARAMS))
        msg_id = self.new_id()
        return Case(f"params:{method}", self.frame({"jsonrpc": "2.0", "id": msg_id, "method": method,
                                                    "params": self.params_for(method)}), expected=[msg_id])

    def lsp_case(self) -> Case:
        method = self.rng.choice(LSP_REQUESTS)
        msg_id = self.new_id()
        params = self.rng.choice([None, {}, {"capabilities": {}}, {"id": msg_id}, self.value()])
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method, **({} if params is None else {"params": params})}
        return Case(f"lsp:{method[:20]}", self.frame(message), expected=[msg_id])

    def bad_id_case(self) -> Case:
        method = self.rng.choice([*BASE_PARAMS, "initialize", "exit", "council/dance"])
        return Case("bad id", self.frame({"jsonrpc": "2.0", "id": self.bad_id(), "method": method,
                                          "params": BASE_PARAMS.get(method, {})}))

    def notification_case(self) -> Case:
        method = self.rng.choice(NOTIFICATIONS)
        if method == "$/cancelRequest":
            params: Any = {"id": self.rng.choice([self.serial, f"f{self.serial}", self.value()])}
        else:
            params = self.rng.choice([None, self.value(), {"streamId": "s", "text": "x"}])
        message = {"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})}
        return Case(f"note:{method}", self.frame(message))

    def response_case(self) -> Case:
        outcome = self.rng.choice([{"result": self.value()}, {"error": self.value()},
                                   {"error": {"code": "x", "message": 5, "data": self.value()}},
                                   {"result": None, "error": None}])
        msg_id = self.rng.choice([self.serial, f"f{self.serial}", f"council-complete-{self.serial}", self.bad_id()])
        return Case("response", self.frame({"jsonrpc": "2.0", "id": msg_id, **outcome}))

    def batch_case(self) -> Case:
        items: list[Any] = []
        expected: list[Any] = []
        for _ in range(self.rng.randint(0, 5)):
            r = self.rng.random()
            if r < 0.4:
                msg_id = self.new_id()
                expected.append(msg_id)
                items.append({"jsonrpc": "2.0", "id": msg_id, "method": self.rng.choice(list(BASE_PARAMS))})
            elif r < 0.6:
                items.append({"jsonrpc": "2.0", "id": self.bad_id(), "method": "council/personas"})
            elif r < 0.8:
                items.append({"jsonrpc": "2.0", "method": "council/dance"})
            else:  # not a message (a dict here could carry an id no case owns)
                items.append(self.rng.choice([self.scalar(), [self.scalar()], {"jsonrpc": "2.0"}]))
        return Case("batch", self.frame(items), expected=expected)

    def envelope_case(self) -> Case:
        msg_id = self.new_id()
        shapes = [
            {"jsonrpc": "1.0", "id": msg_id, "method": "council/personas"},
            {"id": msg_id, "method": "council/personas"},
            {"jsonrpc": 2.0, "id": msg_id, "method": "council/personas"},
            {"jsonrpc": "2.0", "id": msg_id, "method": self.wrong("m")},
            {"jsonrpc": "2.0", "id": msg_id, "method": "council/personas", "params": self.scalar()},
            {"jsonrpc": "2.0", "id": msg_id, "method": "council/personas", "params": [1, 2]},
            {"jsonrpc": "2.0", "id": msg_id, "method": "council/personas", "result": 1},
        ]
        message = self.rng.choice(shapes)
        if message.get("params") is None and "params" in message:
            del message["params"]  # null params are no params: the request runs
        if isinstance(message.get("method"), str) and message["method"] == "":
            message["method"] = None
        if self.rng.random() < 0.15:  # not an object at all: answered with id null
            return Case("envelope:not an object", self.frame(self.scalar()))
        return Case("envelope", self.frame(message), expected=[msg_id])

    def frame_case(self) -> Case:
        """A request in a damaged frame: its id is answered at most once (and lenient headers exactly once)."""
        msg_id = self.new_id()
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "council/personas"}).encode()
        kind = self.rng.choice(FRAME_KINDS)
        exact = kind in LENIENT
        if kind == "lower header":
            data = frame(body, header=b"content-length:%d\n\n")
        elif kind == "lf only":
            data = frame(body, header=b"Content-Length: %d\n\n")
        elif kind == "extra headers":
            data = frame(body, header=b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-A: b\r\n"
                                      b"Content-Length: %d\r\n\r\n")
        elif kind == "blank lines":
            data = b"\r\n\n" + frame(body) + b"\r\n"
        elif kind == "short":
            data = frame(body, length=len(body) - self.rng.randint(1, len(body)))
        elif kind == "long":
            data = frame(body, length=len(body) + self.rng.randint(1, 60))  # the next frame's bytes fill it
        elif kind == "junk before":
            data = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 200))).replace(b"C", b"c").replace(
                b"c", b"x") + frame(body)
        elif kind == "bad length":
            data = frame(body, header=self.rng.choice(BAD_LENGTHS))
        elif kind == "no length":
            data = frame(body, header=b"Content-Type: x%d\r\n\r\n")
        elif kind == "two lengths":
            data = frame(body, header=b"Content-Length: %d\r\nContent-Length: 1\r\n\r\n")
        elif kind == "not utf-8":
            cut = self.rng.randint(1, len(body) - 1)
            data = frame(body[:cut] + self.rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"]) + body[cut:])
        elif kind == "truncated":
            data = frame(body)[:-self.rng.randint(1, len(body) - 1)]
        elif kind == "header only junk":
            data = b"Content-Length: " + str(self.rng.randint(0, 99)).encode() + b"\r\n" + b"junk: \x00\r\n\r\n"
        elif kind == "nan body":
            data = frame(body.replace(b'"council/personas"', b'"council/personas", "params": [NaN, Infinity]'))
        elif kind == "deep body":
            depth = self.rng.choice([5_000, 100_000])
            data = frame(b'{"jsonrpc": "2.0", "id": %s, "method": "x", "params": ' % json.dumps(msg_id).encode()
                         + b"[" * depth + b"]" * depth + b"}")
        else:  # a number the decoder refuses (more than 4300 digits) or turns into infinity
            number = self.rng.choice([b"9" * 5000, b"1e999", b"-1e999"])
            data = frame(body.replace(b'"council/personas"', b'"council/personas", "params": [' + number + b"]"))
        if exact:
            return Case(f"frame:{kind}", data, expected=[msg_id])
        return Case(f"frame:{kind}", data, maybe=[msg_id], damaged=kind in ("truncated", "header only junk", "short"))

    def frame(self, message: Any) -> bytes:
        """A well-formed frame; the JSON escapes non-ASCII or not, at random (lone surrogates need the escapes)."""
        text = json.dumps(message, ensure_ascii=self.rng.random() < 0.5 or _has_surrogate(message))
        return frame(text.encode("utf-8"))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield (*prefix, i)
            yield from _paths(v, (*prefix, i))


def _set(value: Any, path: tuple[Any, ...], make: Callable[[Any], Any]) -> None:
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = make(value[path[-1]])


def _has_surrogate(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
