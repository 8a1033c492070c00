"""``council mcp`` on the MCP client's own model: a real ``council mcp`` subprocess driven by the official Python SDK
client whose ``sampling_callback`` is a scripted model (it answers each ``sampling/createMessage`` with the
scripted provider's reply for the format the request names). A whole consult and a review run on it; a client
without sampling keeps the server's order; an explicit ``--provider`` wins; no model at all, and a client that
refuses, are each one clear error."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from council.providers.base import ChatMessage, CompletionRequest
from council.providers.scripted import auto_reply
from tests.mcp_tools.test_mcp_review import REFACTOR

from .conftest import PROBLEM

CLOSED_PORT_URL = "http://127.0.0.1:9"  # no Ollama answers here


class ScriptedClientModel:
    """The client's model: answers every sampling request with the scripted reply for its format, as a model named
    after the request's first hint (``<hint>-model``, else ``default-model``); or refuses them all."""

    def __init__(self, refuse: types.ErrorData | None = None, prose: bool = False) -> None:
        self.requests: list[types.CreateMessageRequestParams] = []
        self.refuse = refuse
        self.prose = prose  # answer the personas in prose, never the JSON they are asked for

    async def __call__(self, _ctx: Any, params: types.CreateMessageRequestParams):
        self.requests.append(params)
        if self.refuse is not None:
            return self.refuse
        meta = params.metadata or {}
        messages = [ChatMessage(role="system", content=params.system_prompt)] if params.system_prompt else []
        messages += [ChatMessage(role=m.role, content=m.content.text) for m in params.messages]
        reply = auto_reply(CompletionRequest(purpose=meta.get("purpose", ""), messages=messages,
                                             json_schema=meta.get("response_schema")))
        if self.prose and meta.get("response_schema", {}).get("title") == "PersonaReply":
            return types.CreateMessageResult(role="assistant", model="chatty-model", stopReason="endTurn",
                                             content=types.TextContent(type="text", text="Split it, I think."))
        hints = params.model_preferences.hints if params.model_preferences and params.model_preferences.hints else []
        model = f"{hints[0].name}-model" if hints else "default-model"
        return types.CreateMessageResult(role="assistant", model=model, stopReason="endTurn",
                                         content=types.TextContent(type="text", text=json.dumps(reply)))

    def hints(self) -> list[str | None]:
        return [p.model_preferences.hints[0].name if p.model_preferences and p.model_preferences.hints else None
                for p in self.requests]


@pytest.fixture
def mcp_server(tmp_path: Path):
    """``async with mcp_server(model=ScriptedClientModel(), args=[...], env={...})`` → an initialised session of a
    client that offers sampling (``model``) or not; no ``--provider`` unless ``args`` has one, no Ollama."""

    @asynccontextmanager
    async def run(model: ScriptedClientModel | None = None, args: list[str] | None = None,
                  env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
        base = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_")}
        (tmp_path / "ws").mkdir(exist_ok=True)
        params = StdioServerParameters(
            command=sys.executable, cwd=str(tmp_path),
            args=["-m", "council", "mcp", "--no-embeddings", "--workspace", str(tmp_path / "ws"), *(args or [])],
            env={**base, "COUNCIL_OLLAMA_URL": CLOSED_PORT_URL, **(env or {})})
        with (tmp_path / "server.log").open("a", encoding="utf-8") as errlog, anyio.fail_after(90):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, sampling_callback=model) as session:
                    await session.initialize()
                    yield session

    return run


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error
    return (result.structured_content or {}).get("error") or json.loads(result.content[-1].text)["error"]


async def consult(session: ClientSession, progress: list[str] | None = None, **arguments: Any):
    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        if progress is not None and message:
            progress.append(message)

    return await session.call_tool("council_consult", {"user_problem": PROBLEM, "depth": "brief", **arguments},
                                   progress_callback=on_progress)


async def test_a_whole_consult_runs_on_the_clients_model(mcp_server):
    model = ScriptedClientModel()
    progress: list[str] = []
    async with mcp_server(model) as s:
        r = await consult(s, progress)
    assert not r.is_error, r.content[0].text
    data = r.structured_content
    assert len(data["responses"]) == len(data["council"]["personas"]) >= 2
    assert data["synthesis"]["recommendation"] == "Take the staged approach and measure each step."
    assert data["model_calls"] == len(model.requests) >= 2 + len(data["responses"])
    for p in model.requests:
        assert p.system_prompt and p.max_tokens >= 1 and p.include_context == "none"
        assert p.messages[0].role == "user" and all(m.content.type == "text" for m in p.messages)
        assert p.metadata["purpose"] and p.metadata["response_schema"]["title"].endswith("Reply")
    purposes = {p.metadata["purpose"] for p in model.requests}
    assert {"moderator", "synthesizer"} <= purposes and set(data["council"]["personas"]) <= purposes
    assert "The council uses the MCP client's model (your chat model)." in progress

    # seats spread over the client's own choice and the hints; the chair asks with no hint
    names = data["council"]["personas"]
    order = ["the MCP client's model", "claude", "gpt", "gemini"]  # round-robin, the client's own choice first
    chair, hinted = order[0], {order[i % 4] for i in range(len(names))} - {order[0]}
    assert data["seats"] == {name: order[i % 4] for i, name in enumerate(names)}
    for p in model.requests:
        seat = data["seats"].get(p.metadata["purpose"], chair)
        assert (p.model_preferences.hints[0].name if p.model_preferences else chair) == seat
    # calls are counted under the model that answered, and stay within what was stated before the first call
    assert sum(data["calls_by_model"].values()) == data["model_calls"] <= data["max_model_calls"]
    assert set(data["calls_by_model"]) == {"default-model", *(f"{h}-model" for h in hinted)}
    cost = [m for m in progress if m.startswith("💰 About")]
    assert len(cost) == 1 and f"at most {data['max_model_calls']} model calls".lower() in cost[0].lower()
    assert progress.index(cost[0]) < next(i for i, m in enumerate(progress) if "answered (cycle 1)" in m)
    assert any(m.startswith("🪑 Seats:") and "claude" in m for m in progress)
    assert "model calls (" in r.content[0].text and "claude-model" in r.content[0].text


async def test_sampling_hints_none_puts_every_seat_on_the_clients_choice(mcp_server):
    model = ScriptedClientModel()
    async with mcp_server(model, args=["--sampling-hints", "none"]) as s:
        r = await consult(s)
    assert not r.is_error, r.content[0].text
    assert model.hints() == [None] * len(model.requests)
    assert r.structured_content["calls_by_model"] == {"default-model": len(model.requests)}


async def test_the_budget_holds_on_the_clients_model(mcp_server):
    model = ScriptedClientModel()
    async with mcp_server(model) as s:
        r = await consult(s, max_model_calls=5)
    assert not r.is_error, r.content[0].text
    assert len(model.requests) == r.structured_content["model_calls"] <= 5


async def test_a_client_without_sampling_keeps_the_servers_order(mcp_server):
    async with mcp_server(None, env={"COUNCIL_PROVIDER": "scripted"}) as s:
        r = await consult(s)
    assert not r.is_error, r.content[0].text
    assert r.structured_content["model_calls"] >= 4


async def test_sampling_comes_before_a_configured_provider(mcp_server):
    model = ScriptedClientModel()
    async with mcp_server(model, env={"COUNCIL_PROVIDER": "scripted"}) as s:
        r = await consult(s)
    assert not r.is_error, r.content[0].text
    assert r.structured_content["model_calls"] == len(model.requests) > 0


@pytest.mark.parametrize("args", [["--provider", "scripted"], ["--no-sampling"]])
async def test_an_explicit_provider_or_no_sampling_keeps_the_client_model_out(mcp_server, args):
    model = ScriptedClientModel()
    async with mcp_server(model, args=args, env={"COUNCIL_PROVIDER": "scripted"}) as s:
        r = await consult(s)
    assert not r.is_error, r.content[0].text
    assert model.requests == []


async def test_no_model_at_all_is_one_clear_error_with_the_fix(mcp_server, tmp_path: Path):
    config = tmp_path / "council.toml"  # the embedded model, as a VSIX leaves it: not there
    config.write_text(f'[providers.embedded]\nkind = "embedded"\nmodel = "{tmp_path / "absent.gguf"}"\n')
    async with mcp_server(None, args=["--config", str(config)]) as s:
        started = time.monotonic()
        r = await consult(s)
        took = time.monotonic() - started
        again = await consult(s)  # the server keeps serving
    err = error_of(r)
    assert err["code"] == "validation" and err["details"]["reason"] == "no_model"
    assert err["message"].startswith("No model for the council: this MCP client offers no sampling")
    assert "--provider ollama" in err["message"] and "COUNCIL_PROVIDER" in err["message"]
    assert "advisor" not in err["message"] and took < 10
    assert error_of(again)["details"]["reason"] == "no_model"


async def test_an_unreachable_model_is_one_clear_error_and_only_the_clarifier_tried_it(mcp_server):
    """Issue 19 audit: with the server's model unreachable, every role of the consult retried it before the error
    came; the clarifier finds it out, no advisor is asked, and the error says so once, with the fix."""
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        host = f"127.0.0.1:{sock.getsockname()[1]}"
    async with mcp_server(None, args=["--provider", "openai", "--model", "m", "--base-url", f"http://{host}/v1"]) as s:
        r = await consult(s)
    err = error_of(r)
    assert err["message"] == (f"the council could not answer: no model could be reached (could not reach {host}); "
                              "start the model server (for Ollama: `ollama serve`), or choose a model Council can "
                              "reach — `council doctor` shows what it can use")
    assert err["details"]["failures"] == {"clarifier": 4}  # its request, sent 4 times; nobody else tried
    assert set(err["details"]["causes"].values()) == {"unreachable"}


async def test_provider_client_without_sampling_is_one_clear_error(mcp_server):
    async with mcp_server(None, args=["--provider", "client"]) as s:
        r = await consult(s)
    err = error_of(r)
    assert err["code"] == "validation" and "offers no sampling" in err["message"]


async def test_a_client_that_refuses_sampling_is_asked_once_and_one_clear_error(mcp_server):
    denied = types.ErrorData(code=-32000, message="The user has denied permission to call this method.")
    model = ScriptedClientModel(refuse=denied)
    async with mcp_server(model) as s:
        r = await consult(s)
    err = error_of(r)
    assert err["code"] == "permission" and err["details"]["reason"] == "sampling_refused"
    assert "denied permission" in err["message"] and "chat.mcp.serverSampling" in err["message"]
    assert "advisor" not in err["message"]
    assert len(model.requests) == 1  # the first refusal stops the session's asking


async def test_malformed_replies_of_the_clients_model_say_what_was_wrong_and_whose(mcp_server):
    """Issue 19 audit: prose instead of the JSON asked for, from the MCP client's model, ended in "every advisor's
    model failed; check the model configuration" — nothing to configure: the error says what was wrong, and whose."""
    model = ScriptedClientModel(prose=True)
    async with mcp_server(model, args=["--sampling-hints", "none"]) as s:
        r = await consult(s)
    err = error_of(r)
    assert "the MCP client's model" in err["message"] and "unusable" in err["message"]
    assert "JSON" in err["message"] and "check the model configuration" not in err["message"]
    assert set(err["details"]["causes"].values()) == {"malformed"}
    assert err["code"] == "validation" and err["details"]["reason"] == "client_model_failed"  # not internal: the
    # client's model did not do what it was asked (issue 30)


async def test_a_review_runs_on_the_clients_model(mcp_server):
    model = ScriptedClientModel()
    async with mcp_server(model) as s:
        r = await s.call_tool("council_review", REFACTOR)
    assert not r.is_error, r.content[0].text
    assert r.structured_content["final_outcome"] == "APPROVE"
    assert len(model.requests) >= 2 and {"RoleReply", "ChairReply"} <= {
        p.metadata["response_schema"]["title"] for p in model.requests}


class EverySecondCallFails(ScriptedClientModel):
    """The client's model: every second sampling request is answered with a JSON-RPC error."""

    async def __call__(self, ctx: Any, params: types.CreateMessageRequestParams):
        reply = await super().__call__(ctx, params)
        if len(self.requests) % 2 == 0:
            return types.ErrorData(code=types.INTERNAL_ERROR, message="the client's model failed")
        return reply


async def test_a_consult_whose_model_fails_every_second_call_still_answers(mcp_server):
    """Issue 30: with every second model call failed (budget 20) the consult spent its calls and ended in an
    `internal` error — a persona whose first-cycle call failed has no first vote, the wire form dropped that None,
    and reading the result back for its text failed ("moves.0.fromOption Field required"). A failed seat must never
    sink the council's answer."""
    model = EverySecondCallFails()
    async with mcp_server(model) as s:
        r = await consult(s, max_model_calls=20, depth="standard")
        again = await consult(s, max_model_calls=20)  # the server keeps serving
    assert not r.is_error, r.content[0].text
    data = r.structured_content
    assert data["synthesis"]["recommendation"] and data["model_calls"] <= data["max_model_calls"] <= 20
    unplaced = [m for m in (data["debate"] or {}).get("moves", []) if m.get("from_option") is None]
    assert unplaced, data["debate"]  # the case that sank it: a persona without a first vote that voted later
    text = r.content[0].text
    assert text.startswith("**Recommendation:**"), text
    assert f"{unplaced[0]['persona']} cast no first vote and voted for " in text, text  # never "moved to"
    assert not again.is_error, again.content[0].text


class FailsAfter(ScriptedClientModel):
    """The client's model: answers the first ``calls`` sampling requests, then a JSON-RPC error for every one."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.calls = calls

    async def __call__(self, ctx: Any, params: types.CreateMessageRequestParams):
        reply = await super().__call__(ctx, params)
        if len(self.requests) > self.calls:
            return types.ErrorData(code=types.INTERNAL_ERROR, message="the client's model failed")
        return reply


async def test_a_consult_whose_model_fails_in_a_later_cycle_answers_from_the_earlier_one(mcp_server):
    """Issue 30: every call after the 4th failed (the clarifier and the first cycle's three advisors answered; the
    options call, the whole second cycle and the chair failed): the session stalled waiting for a retry nobody sends
    a consult, and the call ended in an `internal` "every advisor's model failed" error with the first cycle lost. It
    answers from the first cycle, and says that the second cycle's calls failed."""
    model = FailsAfter(4)
    progress: list[str] = []
    async with mcp_server(model) as s:
        r = await consult(s, progress, depth="standard")
    assert not r.is_error, r.content[0].text
    data = r.structured_content
    assert data["cycles"] == 1 and len(data["responses"]) == len(data["council"]["personas"]) == 3
    assert {x["cycle"] for x in data["responses"]} == {1} and data["synthesis"]["recommendation"]
    said = "Every advisor's model call in cycle 2 failed"
    assert any(note.startswith(said) for note in data["synthesis"]["notes"]), data["synthesis"]["notes"]
    assert any(line.startswith(said) and "the client's model failed" in line for line in progress), progress


async def test_a_consult_whose_every_model_call_fails_is_no_internal_error(mcp_server):
    """Nothing to answer from (the first cycle's calls failed too): the client's model failed, not Council — a
    `validation` error naming the cause, and the server keeps serving."""
    model = FailsAfter(0)
    async with mcp_server(model) as s:
        r = await consult(s)
        model.calls = 10**6  # the client's model works again
        again = await consult(s)
    err = error_of(r)
    assert err["code"] == "validation" and err["details"]["reason"] == "client_model_failed"
    assert "the client's model failed" in err["message"] and set(err["details"]["causes"]) == {
        "Software Architect", "Senior Developer", "Devil's Advocate"}
    assert not again.is_error, again.content[0].text
