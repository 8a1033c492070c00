"""The sidecar fuzzer: thousands of seeded random and boundary messages and frames (``fuzz_cases``) thrown at one real
``council serve --provider scripted --no-embeddings``, in batches written in random pieces.

After each batch: the process is alive, every request in a well-formed frame with a usable id got exactly one
response, a request in a damaged frame at most one, no response carries an id nobody sent, every error has the
contract's data, and a normal request is still answered. At the end the sidecar still shuts down with exit code 0.
``COUNCIL_FUZZ_SEED`` and ``COUNCIL_FUZZ_CASES`` replay or lengthen a run; the tally is printed (``pytest -s``).
"""

from __future__ import annotations

import os
import queue
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .fuzz_cases import Case, Fuzzer, key
from .raw import RawSidecar, frame, notification, request

SEED = int(os.environ.get("COUNCIL_FUZZ_SEED", "18"))
CASES = int(os.environ.get("COUNCIL_FUZZ_CASES", "2000"))
BATCH = 40
ANSWER_SECONDS = 60  # a batch's requests (some start real sessions) must all be answered within this
RESEND_SECONDS = 0.5  # no answer to the sentinel by then: a damaged frame swallowed it, send another


@dataclass
class Tally:
    cases: Counter[str] = field(default_factory=Counter)
    requests: int = 0  # requests owed exactly one response
    damaged: int = 0  # requests in damaged frames (at most one)
    responses: Counter[tuple[bool, Any]] = field(default_factory=Counter)
    null_id_errors: int = 0
    codes: Counter[int] = field(default_factory=Counter)
    events: int = 0
    sidecar_requests: int = 0
    internal: list[str] = field(default_factory=list)  # internal errors: a fault of ours, never the input's

    def summary(self) -> str:
        return (f"seed {SEED}: {sum(self.cases.values())} cases, {self.requests} requests owed one response, "
                f"{self.damaged} in damaged frames, {sum(self.responses.values())} responses with an id, "
                f"{self.null_id_errors} id-null errors, {self.events} events, codes {dict(self.codes)}")


class Run:
    def __init__(self, sc: RawSidecar) -> None:
        self.sc = sc
        self.tally = Tally()
        self.owed: dict[tuple[bool, Any], str] = {}  # exactly one response
        self.maybe: dict[tuple[bool, Any], str] = {}  # at most one
        self.rng = random.Random(SEED)

    def send(self, cases: list[Case], sentinel: Any) -> None:
        for case in cases:
            self.tally.cases[case.kind.split(":")[0]] += 1
            for msg_id in case.expected:
                self.owed[key(msg_id)] = case.kind
            for msg_id in case.maybe:
                self.maybe[key(msg_id)] = case.kind
            self.tally.requests += len(case.expected)
            self.tally.damaged += len(case.maybe)
        data = b"".join(c.data for c in cases) + _personas(sentinel)
        i = 0
        while i < len(data):  # random pieces: frames split and merged anywhere
            n = self.rng.choice([1, 7, 100, 4096, 65536, len(data)])
            self.sc.send(data[i:i + n])
            i += n

    def pump(self, timeout: float) -> bool:
        """Read one message from the sidecar; False when none came within ``timeout``."""
        try:
            message = self.sc.inbox.get(timeout=timeout)
        except queue.Empty:
            return False
        assert isinstance(message, dict), f"the sidecar closed stdout or wrote bytes that are not JSON: {message!r}"\
            f"\nstderr:\n{self.sc.stderr.decode(errors='replace')[-3000:]}"
        if "method" in message:
            if "id" in message:  # the sidecar asks the client (council/complete): this client has no model
                self.tally.sidecar_requests += 1
                self.sc.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
            else:
                self.tally.events += 1
            return True
        if "error" in message:
            error = message["error"]
            self.tally.codes[error["code"]] += 1
            data = error["data"]
            assert set(data) == {"code", "message", "details", "text"} and isinstance(data["details"], dict), message
            assert data["text"].startswith("The council "), message
            assert data["code"] in ("validation", "permission", "internal") and data["message"], message
            assert "Traceback" not in error["message"], message
            if data["code"] == "internal":
                self.tally.internal.append(f"{message.get('id')!r}: {error['message'][:300]}")
        if message.get("id") is None:
            assert "error" in message, message
            self.tally.null_id_errors += 1
            return True
        msg_key = key(message["id"])
        self.tally.responses[msg_key] += 1
        assert msg_key in self.owed or msg_key in self.maybe, f"a response to an id nobody sent: {message}"
        assert self.tally.responses[msg_key] == 1, f"a second response to {message['id']!r} " \
                                                  f"({self.owed.get(msg_key) or self.maybe.get(msg_key)}): {message}"
        return True

    def settle(self, sentinel: Any) -> None:
        """Until every owed request and the sentinel (or a later one) are answered."""
        deadline = time.monotonic() + ANSWER_SECONDS
        sentinels = [sentinel]
        resend = time.monotonic() + RESEND_SECONDS
        while True:
            missing = [k for k in self.owed if self.tally.responses[k] == 0]
            answered = any(self.tally.responses[key(s)] for s in sentinels)
            if answered and not missing:
                return
            now = time.monotonic()
            assert now < deadline, f"unanswered after {ANSWER_SECONDS} s: " \
                                   f"{[(k[1], self.owed[k]) for k in missing][:10]}; alive: {self.sc.proc.poll()}"
            assert self.sc.proc.poll() is None, f"the sidecar exited: {self.sc.stderr.decode()[-3000:]}"
            if not answered and now > resend:  # a damaged frame swallowed the sentinel: send another
                self.maybe[key(sentinels[-1])] = "sentinel"
                sentinels.append(f"{sentinel}-{len(sentinels)}")
                self.owed[key(sentinels[-1])] = "sentinel"
                del self.owed[key(sentinels[-2])]
                self.sc.send(_personas(sentinels[-1]))
                resend = now + RESEND_SECONDS
            self.pump(0.2)


def _personas(msg_id: Any) -> bytes:
    return frame(request(msg_id, "council/personas"))


def test_the_sidecar_survives_the_fuzzer_and_answers_every_request_exactly_once() -> None:
    fuzzer = Fuzzer(SEED)
    with RawSidecar() as sc:
        sc.initialize()
        run = Run(sc)
        for batch in range(0, CASES, BATCH):
            cases = [fuzzer.case() for _ in range(min(BATCH, CASES - batch))]
            cases.sort(key=lambda c: c.damaged)  # a damaged frame may swallow what follows it: only sentinels do
            sentinel = f"sentinel-{batch}"
            run.owed[key(sentinel)] = "sentinel"
            run.send(cases, sentinel)
            run.settle(sentinel)
        while run.pump(0.5):  # late answers: still at most one each
            pass
        run.owed[key("bye")] = "shutdown"
        sc.send(request("bye", "shutdown"), notification("exit"))
        while run.tally.responses[key("bye")] == 0:
            assert run.pump(30), "shutdown was not answered"
        assert sc.exit_code(30) == 0
    print(run.tally.summary())
    assert sum(run.tally.cases.values()) == CASES
    # An internal error is a fault of ours, except where the contract says a session that could not be done is one:
    # every model call failed (this client answers the council/complete requests of a consult's client_model with an
    # error), or a review ran out of the time the request gave it (timeoutSeconds 1e-320 is valid input).
    expected = ("every advisor's model failed", "could not review: no decision within")
    assert not [e for e in run.tally.internal if not any(reason in e for reason in expected)], run.tally.internal
