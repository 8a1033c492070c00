"""The sampling bridge on its own, with a scripted MCP session in place of the client: the request it builds, the
model that answered, and its faults — a refusal is remembered for the session (the client is asked nothing more),
a failed model call is not, a call after its tool call ended or an answer that is not text is a clear error."""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import McpError

from council.protocol.completion import CompleteParams
from council.providers.base import ChatMessage, ProviderError
from council.providers.sampling import SamplingBridge, SamplingRefused


class ScriptedSession:
    """Answers ``create_message`` with the next item of ``replies`` (an exception is raised), recording each call."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []

    async def create_message(self, messages, **kwargs):
        self.calls.append({"messages": messages, **kwargs})
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


def text_reply(text: str, model: str = "model-x") -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", model=model, content=types.TextContent(type="text", text=text))


def params(model_id: str | None = None, session: str = "s1") -> CompleteParams:
    return CompleteParams(session_id=session, stream_id="x", purpose="Security Expert", model_id=model_id,
                          json_schema={"title": "PersonaReply"}, max_tokens=300, temperature=0.2,
                          messages=[ChatMessage(role="system", content="Format."), ChatMessage(role="system",
                                    content="Role."), ChatMessage(role="user", content="Question?")])


async def noop(_text: str) -> None:
    return None


async def test_the_request_and_the_model_that_answered():
    bridge, session = SamplingBridge(), ScriptedSession(text_reply('{"a": 1}', "claude-sonnet"), text_reply("{}"))
    with bridge.route("s1", session, 7):
        hinted = await bridge.complete(params("claude"), noop)
        chair = await bridge.complete(params("client"), noop)
    assert (hinted.text, hinted.model, chair.model) == ('{"a": 1}', "claude-sonnet", "model-x")
    first, second = session.calls
    assert first["system_prompt"] == "Format.\n\nRole." and [m.role for m in first["messages"]] == ["user"]
    assert first["messages"][0].content.text == "Question?" and first["include_context"] == "none"
    assert (first["max_tokens"], first["temperature"], first["related_request_id"]) == (300, 0.2, 7)
    assert [h.name for h in first["model_preferences"].hints] == ["claude"]
    assert first["metadata"] == {"purpose": "Security Expert", "response_schema": {"title": "PersonaReply"}}
    assert second["model_preferences"] is None  # the chair: the client's own choice
    assert bridge.routes == {}


async def test_a_refusal_is_remembered_for_the_session_and_a_failed_model_call_is_not():
    denied = McpError(types.ErrorData(code=-32000, message="The user has denied permission to call this method."))
    failed = McpError(types.ErrorData(code=types.INTERNAL_ERROR, message="Unknown error: overloaded\n    at x"))
    session = ScriptedSession(failed, text_reply("ok"), denied)
    bridge = SamplingBridge()
    with bridge.route("s1", session, 1) as route:
        with pytest.raises(ProviderError) as model_failed:
            await bridge.complete(params(), noop)
        assert not isinstance(model_failed.value, SamplingRefused) and route.refusal is None
        assert model_failed.value.message == "the MCP client's model failed: Unknown error: overloaded at x"
        assert (await bridge.complete(params(), noop)).text == "ok"
        for _ in range(2):
            with pytest.raises(SamplingRefused) as refused:
                await bridge.complete(params(), noop)
            assert refused.value.said == "The user has denied permission to call this method."
    assert len(session.calls) == 3  # the second refusal never reached the client


async def test_no_route_and_content_that_is_not_text_are_clear_errors():
    bridge = SamplingBridge()
    with pytest.raises(ProviderError, match="tool call that runs the session") as gone:
        await bridge.complete(params(), noop)
    assert gone.value.kind == "config"
    image = types.CreateMessageResult(role="assistant", model="m",
                                      content=types.ImageContent(type="image", data="AA==", mimeType="image/png"))
    with bridge.route("s1", ScriptedSession(image), None), pytest.raises(ProviderError, match="image content"):
        await bridge.complete(params(), noop)


class SlowSession:
    """``create_message`` waits for ``release``; records whether it was cancelled (the SDK's waiter, in the real
    session: cancelling it races with the client's answer and can stop the whole server)."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.started = anyio.Event()
        self.outcome: list[str] = []

    async def create_message(self, messages, **kwargs):
        self.started.set()
        try:
            await self.release.wait()
        except anyio.get_cancelled_exc_class():
            self.outcome.append("cancelled")
            raise
        self.outcome.append("answered")
        return text_reply("late")


async def test_a_request_the_council_stops_waiting_for_keeps_its_waiter_until_the_client_answers():
    bridge, session = SamplingBridge(), SlowSession()
    async with bridge.serving():
        with bridge.route("s1", session, 7):
            with anyio.CancelScope() as scope:  # a speculative debate cycle, cancelled once the vote settles
                async with anyio.create_task_group() as tg:
                    tg.start_soon(bridge.complete, params(), noop)
                    await session.started.wait()
                    scope.cancel()
            assert session.outcome == []  # the caller is gone; the request still waits for its answer
            session.release.set()
            with anyio.fail_after(5):
                while not session.outcome:
                    await anyio.sleep(0.01)
    assert session.outcome == ["answered"]
