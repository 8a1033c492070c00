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

from council.errors import root_cause
from council.protocol.completion import CompleteParams, CompleteResult  # upward: this provider speaks that wire
from council.providers.base import CompletionRequest, DeltaSink, ProviderError, PushProvider


class ClientBridge(Protocol):
    """Serves ``council/complete``. A bridge whose replies name the model that actually answered, which may differ
    from the one asked for (MCP sampling, where a model id is only a hint), sets ``names_models = True``: calls
    are then counted under the model that answered."""

    async def complete(self, params: CompleteParams, on_delta: Callable[[str], Awaitable[None]]) -> CompleteResult:
        ...


class ClientProvider(PushProvider):
    id = "client"

    def __init__(self, bridge: ClientBridge, model: str = "client", model_id: str | None = None) -> None:
        super().__init__(model or "client")
        self.bridge = bridge
        self.model_id = model_id  # which of the client's models (None: the chat's one, as the client decides)

    async def push(self, request: CompletionRequest, on_delta: DeltaSink | None) -> str:
        """Ask the client; forward each delta as it arrives (no queue); a final text longer than what was
        streamed sends its rest as the last delta. Returns what was forwarded."""
        params = CompleteParams(session_id=request.session_id, stream_id=uuid.uuid4().hex, purpose=request.purpose,
                                messages=request.messages, json_schema=request.json_schema,
                                max_tokens=request.max_tokens, temperature=request.temperature,
                                model_id=self.model_id)
        streamed: list[str] = []
        consumer: list[BaseException] = []

        async def forward(text: str) -> None:
            if not text:
                return
            streamed.append(text)
            if on_delta is not None:
                try:
                    await on_delta(text)
                except Exception as exc:  # the council's own failure, not the client's
                    consumer.append(exc)
                    raise

        try:
            result = await self.bridge.complete(params, forward)
        except Exception as exc:
            root = root_cause(exc)  # a task group on the way wraps the real failure in an ExceptionGroup
            if isinstance(root, ProviderError):
                raise root from None
            if consumer:
                raise consumer[0] from None
            raise ProviderError(f"the client could not complete the prompt: {root}", kind="client") from None
        if result.model and (self.model_id is None or getattr(self.bridge, "names_models", False)):
            self.model = result.model  # the client names its one model (a listed one has its name), or, when the
            # model asked for is only a preference (MCP sampling's hints), the model that actually answered
        sent = "".join(streamed)
        if result.text.startswith(sent) and len(result.text) > len(sent):
            await forward(result.text[len(sent):])
        return "".join(streamed)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        """The same deltas as an async iterator (the council calls ``push``)."""
        send, receive = anyio.create_memory_object_stream[str](1000)
        failure: list[BaseException] = []

        async def run() -> None:
            try:
                await self.push(request, send.send)
            except ProviderError as exc:
                failure.append(exc)
            finally:
                await send.aclose()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            async with receive:
                async for chunk in receive:
                    yield chunk
        if failure:
            raise failure[0]
