"""ClientProvider.push: deltas forwarded straight from the bridge's callback, in order, without a queue."""

from __future__ import annotations

import pytest

from council.protocol.completion import CompleteResult
from council.providers.base import ChatMessage, CompletionRequest, ProviderError, complete
from council.providers.client import ClientProvider

REQUEST = CompletionRequest(purpose="Senior Developer", messages=[ChatMessage(role="user", content="hi")])


class Bridge:
    def __init__(self, deltas: list[str], text: str, error: Exception | None = None) -> None:
        self.deltas, self.text, self.error = deltas, text, error

    async def complete(self, params, on_delta) -> CompleteResult:
        for d in self.deltas:
            await on_delta(d)
        if self.error is not None:
            raise self.error
        return CompleteResult(text=self.text, model="m2")


async def collect(provider, request=REQUEST) -> tuple[str, list[str]]:
    got: list[str] = []

    async def sink(text: str) -> None:
        got.append(text)

    return await complete(provider, request, sink), got


async def test_deltas_are_forwarded_in_order_and_the_rest_of_the_final_text_follows():
    provider = ClientProvider(Bridge(["ab", "", "cd"], "abcdef"))
    text, got = await collect(provider)
    assert (text, got, provider.model) == ("abcdef", ["ab", "cd", "ef"], "m2")


async def test_a_final_text_that_contradicts_the_stream_keeps_what_was_streamed():
    text, got = await collect(ClientProvider(Bridge(["ab"], "xyz")))
    assert (text, got) == ("ab", ["ab"])


async def test_nothing_streamed_sends_the_final_text_once():
    assert await collect(ClientProvider(Bridge([], "whole"))) == ("whole", ["whole"])


async def test_a_bridge_failure_is_a_provider_error():
    with pytest.raises(ProviderError, match="could not complete the prompt: boom"):
        await collect(ClientProvider(Bridge(["a"], "", RuntimeError("boom"))))


async def test_the_councils_own_failure_is_not_blamed_on_the_client():
    async def broken(text: str) -> None:
        raise KeyError("renderer bug")

    with pytest.raises(KeyError):
        await complete(ClientProvider(Bridge(["a"], "a")), REQUEST, broken)


async def test_stream_yields_the_same_deltas():
    provider = ClientProvider(Bridge(["ab", "cd"], "abcdef"))
    assert [c async for c in provider.stream(REQUEST)] == ["ab", "cd", "ef"]
