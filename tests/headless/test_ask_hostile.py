"""The asking call of the first vote (an advisor the moderator could not place is asked which option is its own)
answered by a real model server that does not answer as asked: a real OpenAI-compatible HTTP server on 127.0.0.1
(the loopback fake) and the real sidecar over JSON-RPC. The moderator places only the first advisor; the others'
``OptionChoice`` replies are the hostile ones. What a model plainly means (``B) Wait``, ``2``, the label) is read as
a vote is read in the debate; what names no option gets the one repair, then the advisor abstains; nothing crashes,
hangs or breaks the bound."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from council.client.rpc import start_sidecar

from .fake_openai import FakeOpenAI, fake_openai

TRIO = ["Software Architect", "Senior Developer", "Devil's Advocate"]
PROBLEM = "Should we split our monolith into services this quarter?"
OPTIONS = {"options": [{"label": "Staged approach", "description": "Proceed in small steps.", "supporters": [1]},
                       {"label": "Wait", "description": "Postpone until the team is larger.", "supporters": []}]}


def sse(text: str, done: bool = True) -> bytes:
    chunks = [text[i:i + 40] for i in range(0, len(text), 40)]
    events = "".join(f"data: {json.dumps({'choices': [{'delta': {'content': c}}]})}\n\n" for c in chunks)
    return (events + ("data: [DONE]\n\n" if done else "")).encode()


class Hostile(FakeOpenAI):
    """Places only advisor 1 under option A; answers every ``OptionChoice`` call with ``said`` (then ``repaired``,
    when given, to the repair)."""

    def __init__(self, said: str, repaired: str | None = None, **kw: Any) -> None:
        super().__init__("HOSTILE", personas=True, **kw)
        self.said, self.repaired = said, repaired

    def answer(self, body: dict[str, Any], auth: str) -> tuple[int, bytes, str]:
        form = body["response_format"]
        title = (form["json_schema"]["schema"] if "json_schema" in form else form["schema"]).get("title")
        if title not in ("OptionsReply", "OptionChoice"):
            return super().answer(body, auth)
        if title == "OptionChoice" and self.failures:  # HTTP failures first (FakeOpenAI's own list)
            return super().answer(body, auth)
        with self.lock:
            self.requests.append(body)
        if title == "OptionsReply":
            return 200, sse(json.dumps(OPTIONS)), "text/event-stream"
        if self.said == "hang":
            self.stopped.wait(5)
            return 200, sse('{"option_id": "B"}'), "text/event-stream"
        if self.said == "cut":
            return 200, sse('{"option_id": "', done=False), "text/event-stream"
        repair = len(body["messages"]) > 2  # the repair carries the bad reply and what was wrong with it
        return 200, sse(self.repaired if repair and self.repaired is not None else self.said), "text/event-stream"


async def session(tmp_path: Path, fake: Hostile, **provider: Any) -> tuple[dict[str, Any], list[str]]:
    with fake_openai(fake) as base_url:
        config = tmp_path / "council.json"
        config.write_text(json.dumps({"default": "local", "providers": {"local": {
            "kind": "openai", "base_url": base_url, "model": "m", "max_retries": 0, **provider}}}), encoding="utf-8")
        with anyio.fail_after(60):
            async with start_sidecar(["--config", str(config), "--no-embeddings"]) as sc:
                r = await sc.call("council/turn", {"text": PROBLEM, "options": {
                    "clarify": False, "personas": TRIO, "speculate": "never", "maxCycles": 3}})
                assert r["status"] == "completed"
                snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
    form = [b["response_format"] for b in fake.requests]
    titles = [(f["json_schema"]["schema"] if "json_schema" in f else f["schema"])["title"] for f in form]
    return snap["session"], titles


def first_votes(s: dict[str, Any]) -> dict[str, str]:
    return {v["persona"]: v["optionId"] for v in s["votes"] if v["cycle"] == 1}


@pytest.mark.parametrize("said", ['{"option_id": "B) Wait"}', '{"option_id": "2"}', '{"option_id": "Option B"}',
                                  '{"option_id": "Wait"}', '{"option_id": "**B**"}', '{"option_id": 2}'])
async def test_an_answer_that_plainly_names_an_option_is_that_advisors_first_vote(tmp_path, said):
    """Before, only the bare letter in any case was read: "B) Wait", "2", "Option B", the label were thrown away
    (no repair either: they parsed) and the advisor abstained — though the debate reads each of them as B."""
    s, titles = await session(tmp_path, Hostile(said))
    assert first_votes(s) == {TRIO[0]: "A", TRIO[1]: "B", TRIO[2]: "B"}
    assert titles.count("OptionChoice") == 2  # read at once: no repair
    assert s["metadata"]["calls"] == len(titles) <= s["callPlans"][-1]["callLimit"]


@pytest.mark.parametrize("said", ['{"option_id": "Z"}', '{"option_id": "maybe"}',
                                  json.dumps({"option_id": "Q" * 100_000})])
async def test_an_answer_that_names_no_option_gets_its_one_repair(tmp_path, said):
    """Before, a letter off the list was taken as parsed and the advisor abstained with no repair asked (the
    docstring's "after the one repair" held only for JSON that did not parse)."""
    s, titles = await session(tmp_path, Hostile(said, repaired='{"option_id": "B"}'))
    assert first_votes(s) == {TRIO[0]: "A", TRIO[1]: "B", TRIO[2]: "B"}
    assert titles.count("OptionChoice") == 4  # each asked advisor: the call and its one repair
    assert s["metadata"]["calls"] == len(titles) <= s["callPlans"][-1]["callLimit"]


@pytest.mark.parametrize("said", ['{"option_id": "Z"}', "{}", "null", '["B"]', '{"option_id": {"id": "B"}}',
                                  "B"])
async def test_an_answer_still_unusable_after_its_repair_leaves_the_advisor_unplaced(tmp_path, said):
    s, titles = await session(tmp_path, Hostile(said))
    assert first_votes(s) == {TRIO[0]: "A"}
    assert titles.count("OptionChoice") == 4 and s["debateCycles"] == 2
    assert s["metadata"]["calls"] == len(titles) <= s["callPlans"][-1]["callLimit"]


async def test_a_server_that_fails_the_asking_and_then_answers_is_retried_within_the_bound(tmp_path):
    """HTTP 500, then 429, then the answers: the provider's own retries are calls, counted and within the bound."""
    fake = Hostile('{"option_id": "B"}', failures=[("OptionChoice", 500), ("OptionChoice", 429)])
    s, titles = await session(tmp_path, fake, max_retries=1)
    assert first_votes(s) == {TRIO[0]: "A", TRIO[1]: "B", TRIO[2]: "B"}
    assert titles.count("OptionChoice") == 4  # two failed requests, two answers
    assert s["metadata"]["calls"] == len(titles) <= s["callPlans"][-1]["callLimit"]


@pytest.mark.parametrize("said", ["hang", "cut", ""])
async def test_an_asking_call_that_hangs_or_breaks_off_leaves_the_advisor_unplaced_and_the_debate_goes_on(
        tmp_path, said):
    s, titles = await session(tmp_path, Hostile(said), timeout=1)
    assert first_votes(s) == {TRIO[0]: "A"} and s["debateCycles"] == 2
    assert s["metadata"]["calls"] == len(titles) <= s["callPlans"][-1]["callLimit"]
