"""The sampling bridge on its own, with a scripted MCP session in place of the client: the request it builds, the
model that answered, and its faults — a refusal is remembered for the session (the client is asked nothing more),
a failed model call is not, a call after its tool call ended or an answer that is not text is a clear error, a
malformed reply is the client's model failing (never a refusal), and a request the council stops waiting for —
cancelled, or past its deadline — is withdrawn and its waiter ends by the transport's error, never cancelled."""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from council.protocol.completion import CompleteParams
from council.providers.base import ChatMessage, ProviderError
from council.providers.sampling import SamplingBridge, SamplingRefused


class ScriptedSession:
    """Answers ``create_message`` with the next item of ``replies`` (an exception is raised), recording each call;
    numbers its requests as the SDK's session does and records what it is told (``notifications/cancelled``)."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []
        self.notified: list[types.ServerNotification] = []
        self._request_id = 0

    async def send_notification(self, notification, related_request_id=None) -> None:
        self.notified.append(notification)

    async def create_message(self, messages, **kwargs):
        self._request_id += 1
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
    bridge = SamplingBridge(timeout=30)
    session = ScriptedSession(text_reply('{"a": 1}', "claude-sonnet"), text_reply("{}"))
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
    denied = MCPError(-32000, "The user has denied permission to call this method.")
    failed = MCPError(types.INTERNAL_ERROR, "Unknown error: overloaded\n    at x")
    session = ScriptedSession(failed, text_reply("ok"), denied)
    bridge = SamplingBridge(timeout=30)
    with bridge.route("s1", session, 1) as route:
        with pytest.raises(ProviderError) as model_failed:
            await bridge.complete(params(), noop)
        assert not isinstance(model_failed.value, SamplingRefused) and route.refusal is None
        assert model_failed.value.message == "the client's model failed: Unknown error: overloaded at x"
        assert (await bridge.complete(params(), noop)).text == "ok"
        for _ in range(2):
            with pytest.raises(SamplingRefused) as refused:
                await bridge.complete(params(), noop)
            assert refused.value.said == "The user has denied permission to call this method."
    assert len(session.calls) == 3  # the second refusal never reached the client


async def test_no_route_and_content_that_is_not_text_are_clear_errors():
    bridge = SamplingBridge(timeout=30)
    with pytest.raises(ProviderError, match="tool call that runs the session") as gone:
        await bridge.complete(params(), noop)
    assert gone.value.kind == "config"
    image = types.CreateMessageResult(role="assistant", model="m",
                                      content=types.ImageContent(type="image", data="AA==", mimeType="image/png"))
    with bridge.route("s1", ScriptedSession(image), None), pytest.raises(ProviderError, match="image content"):
        await bridge.complete(params(), noop)


class SlowSession(ScriptedSession):
    """``create_message`` waits until the client answers (``release``) or the transport ends it: when the request is
    withdrawn, as ``council.mcpserver.stdio`` does, with the ``withdrawn`` error. Records whether its waiter was
    cancelled (in the real session that races with the client's answer and can stop the whole server)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = anyio.Event()
        self.started = anyio.Event()
        self.outcome: list[str] = []
        self.ended: MCPError | None = None

    async def send_notification(self, notification, related_request_id=None) -> None:
        await super().send_notification(notification, related_request_id)
        self.ended = MCPError.from_error_data(types.ErrorData(code=-32001, message="withdrawn", data={
            "code": "validation", "message": "withdrawn", "details": {"reason": "withdrawn"}}))
        self.release.set()

    async def create_message(self, messages, **kwargs):
        self._request_id += 1
        self.started.set()
        try:
            await self.release.wait()
        except anyio.get_cancelled_exc_class():
            self.outcome.append("cancelled")
            raise
        self.outcome.append("ended" if self.ended else "answered")
        if self.ended:
            raise self.ended
        return text_reply("late")


def withdrawn(session: ScriptedSession) -> list[tuple[Any, str | None]]:
    return [(n.params.request_id, n.params.reason) for n in session.notified]


async def test_a_request_the_council_stops_waiting_for_is_withdrawn_and_its_waiter_ends_uncancelled():
    bridge, session = SamplingBridge(timeout=30), SlowSession()
    with bridge.route("s1", session, 7):
        with anyio.CancelScope() as scope:  # a speculative debate cycle, cancelled once the vote settles
            async with anyio.create_task_group() as tg:
                tg.start_soon(bridge.complete, params(), noop)
                await session.started.wait()
                scope.cancel()
    assert withdrawn(session) == [(0, "the council no longer needs this reply")]  # the client may stop its model
    assert session.outcome == ["ended"]  # ended by the transport's error, not cancelled


async def test_a_request_nobody_answers_is_withdrawn_at_its_deadline():
    """Before: sampling had no deadline; the tool call waited for ever."""
    bridge, session = SamplingBridge(timeout=0.2), SlowSession()
    with bridge.route("s1", session, 7), anyio.fail_after(5):
        with pytest.raises(ProviderError) as late:
            await bridge.complete(params(), noop)
    assert late.value.kind == "timeout" and "0.2 s" in late.value.message
    assert withdrawn(session) == [(0, "no answer within 0.2 s")] and session.outcome == ["ended"]


async def test_a_malformed_reply_is_the_clients_model_failing_never_a_refusal():
    """Before: the transport's error for a malformed reply was taken for a refusal (``permission``); a result the
    SDK could not read went up as a bare ValidationError."""
    malformed = MCPError(-32600, "the client's response to request 0 is malformed: x",
                         data={"code": "validation", "message": "x", "details": {
                             "reason": "malformed_response", "problem": "its result is list"}})
    unreadable = ValidationError.from_exception_data("CreateMessageResult", [
        {"type": "missing", "loc": ("model",), "input": {}}])
    bridge = SamplingBridge(timeout=30)
    with bridge.route("s1", ScriptedSession(malformed, unreadable, text_reply("ok")), 1) as route:
        for said in ("its reply was malformed: its result is list", "its reply was malformed: model: Field required"):
            with pytest.raises(ProviderError) as failed:
                await bridge.complete(params(), noop)
            assert not isinstance(failed.value, SamplingRefused) and failed.value.kind == "client"
            assert failed.value.message == f"the client's model failed: {said}"
        assert (await bridge.complete(params(), noop)).text == "ok"  # asked again: not a refusal
    assert route.refusal is None and len(route.faults) == 2
