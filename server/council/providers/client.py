"""The client-backed provider: asks the JSON-RPC client ("complete this prompt with your model").

This is how VS Code lends the chat's own model to the council. The server supplies a :class:`ClientBridge`
that sends ``council/complete`` and routes ``council/completeDelta`` notifications back; cancelling the stream
makes the bridge send ``$/cancelRequest`` for the outgoing request.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

import anyio

from council.protocol.completion import CompleteParams, CompleteResult
from council.providers.base import CompletionRequest, Provider, ProviderError


class ClientBridge(Protocol):
    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        """Send council/complete; call ``on_delta`` for each streamed delta; return the final result."""
        ...


class ClientProvider(Provider):
    id = "client"

    def __init__(self, bridge: ClientBridge, model: str = "client") -> None:
        super().__init__(model or "client")
        self.bridge = bridge

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        params = CompleteParams(session_id=request.session_id, stream_id=uuid.uuid4().hex, purpose=request.purpose,
                                messages=request.messages, json_schema=request.json_schema,
                                max_tokens=request.max_tokens, temperature=request.temperature)
        send, receive = anyio.create_memory_object_stream[str](1000)
        streamed: list[str] = []
        result: list[CompleteResult] = []
        failure: list[BaseException] = []

        async def on_delta(text: str) -> None:
            streamed.append(text)
            await send.send(text)

        async def run() -> None:
            try:
                result.append(await self.bridge.complete(params, on_delta))
            except ProviderError as exc:
                failure.append(exc)
            except Exception as exc:
                failure.append(ProviderError(f"the client could not complete the prompt: {exc}", kind="client"))
            finally:
                await send.aclose()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            async with receive:
                async for chunk in receive:
                    yield chunk
        if failure:
            raise failure[0]
        if result:
            text = result[0].text
            sent = "".join(streamed)
            if result[0].model:
                self.model = result[0].model
            if text.startswith(sent) and len(text) > len(sent):
                yield text[len(sent):]
            elif not sent:
                yield text
