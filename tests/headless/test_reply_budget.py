"""Issue 34: every provider gets a reply budget, not only the embedded model. A whole session runs over JSON-RPC
against a real OpenAI-compatible HTTP server on 127.0.0.1 (the loopback fake): its persona, clarifier, options and
chair calls ask capped texts (``maxLength`` where the backend enforces the schema, as llama.cpp's grammar does) with
a token budget that fits them, and the prompt says the caps in words, also where the backend enforces nothing
(``json_mode: none``: no schema is sent, only the words)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from council.client.rpc import start_sidecar
from council.session.calls.prompts import DEPTH_TOKENS
from council.session.state.entities import Depth

from .fake_openai import FakeOpenAI, fake_openai

PROBLEM = "Should we split our billing monolith into services this quarter, with a team of eight?"


def _strings(node: Any, in_items: bool = False):
    """(maxLength, in a list) for every free-text string of a schema."""
    if not isinstance(node, dict):
        return
    if node.get("type") == "string" and "enum" not in node:
        yield node.get("maxLength"), in_items
    for value in (node.get("properties") or {}).values():
        yield from _strings(value, in_items)
    if isinstance(node.get("items"), dict):
        yield from _strings(node["items"], True)


async def _session(tmp_path: Path, json_mode: str | None, args: tuple[str, ...] = (),
                   personas: bool = False) -> FakeOpenAI:
    fake = FakeOpenAI("BUDGET-MARK", personas=personas)
    with fake_openai(fake) as base_url:
        options = {"json_mode": json_mode} if json_mode else {}
        config = tmp_path / "council.json"
        config.write_text(json.dumps({"default": "local", "providers": {"local": {
            "kind": "openai", "base_url": base_url, "model": "m", "max_retries": 0, "options": options}}}),
            encoding="utf-8")
        with anyio.fail_after(90):
            async with start_sidecar(["--config", str(config), "--no-embeddings", *args]) as sc:
                r = await sc.call("council/turn", {"text": PROBLEM})
                if r["status"] == "clarifying":
                    r = await sc.call("council/turn", {"sessionId": r["sessionId"], "text": "skip all"})
    assert r["status"] == "completed"
    return fake


def _kind(body: dict[str, Any]) -> str:
    return body["messages"][0]["content"].split(". ", 1)[0] if "response_format" not in body else ""


async def test_a_llama_cpp_style_server_is_asked_capped_replies_with_a_budget_that_fits(tmp_path: Path):
    fake = await _session(tmp_path, None)  # loopback: llama.cpp's json_object with a schema, which it enforces
    asked: dict[str, list[dict[str, Any]]] = {}
    for body in fake.requests:
        asked.setdefault(body["response_format"]["schema"]["title"], []).append(body)
    assert {"PersonaReply", "OptionsReply", "SynthesisReply"} <= set(asked)
    for title, bodies in asked.items():
        for body in bodies:
            caps = list(_strings(body["response_format"]["schema"]))
            assert caps and all(cap is not None for cap, _ in caps), title
            assert all(cap <= 80 for cap, in_items in caps if in_items), title  # a bullet: ~11 words
            if title == "PersonaReply":
                assert all(cap <= 160 for cap, _ in caps)  # as long as the chat shows a position
                assert body["max_tokens"] <= DEPTH_TOKENS[Depth.STANDARD]
                assert "Every bullet at most 11 words." in body["messages"][0]["content"]
                assert "position (at most 22 words" in body["messages"][0]["content"]
    chair = asked["SynthesisReply"][0]  # llama.cpp's grammar caps a text at 240 characters: the words say so
    assert chair["response_format"]["schema"]["properties"]["recommendation"]["maxLength"] == 240
    assert "recommendation (at most 34 words" in chair["messages"][0]["content"]
    persona = asked["PersonaReply"][0]["response_format"]["schema"]["properties"]
    assert persona["risks"]["maxItems"] == 3 and persona["summary"]["minItems"] == persona["summary"]["maxItems"] == 5


@pytest.mark.parametrize("json_mode", ["none"])
async def test_a_backend_that_enforces_no_schema_reads_the_caps_in_words(tmp_path: Path, json_mode: str):
    fake = FakeOpenAI("BUDGET-MARK")
    seen: list[dict[str, Any]] = []
    answer = fake.answer

    def record(body: dict[str, Any], auth: str):  # no response_format is sent: answer as a persona would
        seen.append(body)
        system = body["messages"][0]["content"]
        title = next(t for key, t in (("position (", "PersonaReply"), ('"position"', "PersonaReply"),
                                      ('"recommendation"', "SynthesisReply"), ('"options"', "OptionsReply"),
                                      ('"needs_clarification"', "ClarifierReply")) if key in system)
        body = {**body, "response_format": {"schema": {"title": title, "properties": {}}}}
        return answer(body, auth)

    fake.answer = record  # type: ignore[method-assign]
    with fake_openai(fake) as base_url:
        config = tmp_path / "council.json"
        config.write_text(json.dumps({"default": "local", "providers": {"local": {
            "kind": "openai", "base_url": base_url, "model": "m", "max_retries": 0,
            "options": {"json_mode": json_mode}}}}), encoding="utf-8")
        with anyio.fail_after(90):
            async with start_sidecar(["--config", str(config), "--no-embeddings"]) as sc:
                r = await sc.call("council/turn", {"text": PROBLEM})
                if r["status"] == "clarifying":
                    r = await sc.call("council/turn", {"sessionId": r["sessionId"], "text": "skip all"})
    personas = [b for b in seen if '"position"' in b["messages"][0]["content"]]
    assert personas and all("response_format" not in b for b in seen)
    for body in personas:
        system = body["messages"][0]["content"]
        assert '"position": string, at most 22 words' in system and "Every bullet at most 11 words." in system
        assert body["max_tokens"] <= DEPTH_TOKENS[Depth.STANDARD]
    chair = next(b for b in seen if '"recommendation"' in b["messages"][0]["content"])
    assert '"recommendation": string, at most 128 words' in chair["messages"][0]["content"]  # no grammar: 900


async def test_a_later_cycle_asks_only_for_a_new_point_in_each_list(tmp_path: Path):
    """Issue 34: a persona's reply in a later cycle (a vote, or whom it backs beside the options call) asks for at
    most one new point in summary, advice, next steps and risks, or none — its earlier ones stand after it — and
    not for its assumptions and questions; the prompt says so, and its token budget shrinks with it (what a server
    receives). Cycle 1 asks for every list at the depth's count, and for at least one risk: SmolLM2 under llama.cpp's
    grammar wrote the Devil's Advocate's risks (its counterpoints) empty in 2 of ~20 real sessions, which cost a
    repair call and then its seat; the prompt says "1-3"."""
    fake = await _session(tmp_path, None, ("--min-cycles", "3", "--max-cycles", "3"), personas=True)  # a split
    personas = [b for b in fake.requests if b["response_format"]["schema"]["title"] == "PersonaReply"]
    later = [b for b in personas if {"option_id", "backs"} & set(b["response_format"]["schema"]["properties"])]
    first = [b for b in personas if b not in later]
    assert first and later
    for body in personas:
        props = body["response_format"]["schema"]["properties"]
        for field in ("summary", "advice", "next_steps"):
            assert (props[field].get("minItems", 0), props[field]["maxItems"]) == ((0, 1) if body in later else (5, 5))
        assert (props["risks"].get("minItems", 0), props["risks"]["maxItems"]) == ((0, 1) if body in later else (1, 3))
        assert ({"assumptions", "questions"} <= set(props)) == (body not in later)
        assert ("risks (1-3 short bullets" in body["messages"][0]["content"]) == (body not in later)
        said = "in each write only a point this cycle added (one at most"
        assert (said in body["messages"][-1]["content"]) == (body in later)
    assert max(b["max_tokens"] for b in later) < min(b["max_tokens"] for b in first) / 2


async def test_the_clarifier_is_asked_a_plan_with_nothing_it_does_not_use(tmp_path: Path):
    """Issue 34: SmolLM2 under llama.cpp's grammar wrote every string of the clarifier's plan up to its cap (a median
    386-416 completion tokens a call on real generation). What the server receives: no ``reason`` (nothing read
    it), two to four candidates of a few words each (every choice has a course to favour, so no repair for a plan
    without them), two or three choices per question, each a button's few words; the prompt says the same."""
    fake = await _session(tmp_path, None)
    body = next(b for b in fake.requests if b["response_format"]["schema"]["title"] == "ClarifierReply")
    props = body["response_format"]["schema"]["properties"]
    assert list(props) == ["needs_clarification", "candidates", "questions"]
    assert (props["candidates"]["minItems"], props["candidates"]["maxItems"]) == (2, 4)
    assert props["candidates"]["items"]["maxLength"] <= 48
    question = props["questions"]["items"]["properties"]
    assert (question["choices"]["minItems"], question["choices"]["maxItems"]) == (2, 3)
    assert question["choices"]["items"]["properties"]["answer"]["maxLength"] <= 40
    assert question["default_assumption"]["maxLength"] == 80  # the written-down assumption keeps its ~11 words
    system = body["messages"][0]["content"]
    assert "reason" not in system and "at most 3 short, targeted questions" in system
    assert "choices (2-3 items with answer (at most 5 words" in system
