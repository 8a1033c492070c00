"""OpenAI-compatible provider against scripted HTTP faults (httpx.MockTransport) and a closed port."""

from __future__ import annotations

import logging
import socket
import threading
import time

import anyio
import httpx
import pytest
from provider_helpers import SECRET, Script, chunk, ok_sse, request, sse

from council.config import ProviderConfig
from council.providers.base import ProviderError, complete
from council.providers.openai_compat import OpenAICompatProvider, chat_url


def provider(script: Script | None = None, sleeps=None, **cfg) -> OpenAICompatProvider:
    base = {
        "kind": "openai",
        "model": "m",
        "base_url": "https://api.example.com/v1",
        "api_key": "${TEST_KEY}",
    }
    return OpenAICompatProvider(
        ProviderConfig(**{**base, **cfg}), transport=script.transport if script else None, sleep=sleeps
    )


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("TEST_KEY", SECRET)


async def test_streams_chunks_and_sends_key_and_body():
    script = Script(ok_sse("Hel", "lo", "!"))
    p = provider(script)
    chunks = [c async for c in p.stream(request(max_tokens=7, temperature=0.1))]
    assert chunks == ["Hel", "lo", "!"]
    req = script.requests[0]
    assert str(req.url) == "https://api.example.com/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {SECRET}"
    body = script.body()
    assert body["stream"] is True and body["max_tokens"] == 7 and body["messages"][0]["content"] == "Say hi"
    assert "response_format" not in body


def test_chat_url_variants():
    assert chat_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/v1/chat/completions"
    assert chat_url("https://openrouter.ai/api/v1/") == "https://openrouter.ai/api/v1/chat/completions"
    assert chat_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"


async def test_json_mode_defaults_by_host_and_inlines_refs():
    schema = {
        "type": "object",
        "properties": {"v": {"$ref": "#/$defs/V"}},
        "$defs": {"V": {"type": "integer"}},
    }
    remote = provider().body(request(json_schema=schema))["response_format"]
    assert remote["type"] == "json_schema" and remote["json_schema"]["strict"] is False
    assert remote["json_schema"]["schema"]["properties"]["v"] == {"type": "integer"}
    local = provider(base_url="http://127.0.0.1:8080").body(request(json_schema=schema))["response_format"]
    assert local == {
        "type": "json_object",
        "schema": {"type": "object", "properties": {"v": {"type": "integer"}}},
    }
    forced = provider(base_url="http://localhost:1", options={"json_mode": "json_schema"})
    assert forced.body(request(json_schema=schema))["response_format"]["type"] == "json_schema"
    none = provider(options={"json_mode": "none"})
    assert "response_format" not in none.body(request(json_schema=schema)) and not none.constrains_json


async def test_429_with_retry_after_then_success(sleeps):
    script = Script(
        httpx.Response(429, headers={"retry-after": "7"}, json={"error": {"message": "slow down"}}),
        ok_sse("ok"),
    )
    assert await complete(provider(script, sleeps), request()) == "ok"
    assert len(script.requests) == 2 and sleeps.calls == [7.0]


async def test_retry_after_is_capped_and_http_date(sleeps):
    script = Script(httpx.Response(503, headers={"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"}), ok_sse("x"))
    assert await complete(provider(script, sleeps), request()) == "x"
    assert sleeps.calls == [60.0]


async def test_500_then_success_uses_backoff(sleeps):
    script = Script(
        httpx.Response(500, text="boom"), httpx.Response(502, text="<html>bad gateway</html>"), ok_sse("fine")
    )
    assert await complete(provider(script, sleeps), request()) == "fine"
    assert len(sleeps.calls) == 2 and all(0.5 <= s <= 20.5 for s in sleeps.calls)


async def test_400_fails_fast_with_provider_message(sleeps):
    script = Script(httpx.Response(400, json={"error": {"message": "max_tokens is too large"}}), ok_sse("never"))
    with pytest.raises(ProviderError) as info:
        await complete(provider(script, sleeps), request())
    err = info.value
    assert err.kind == "client" and not err.retryable and err.status == 400
    assert "max_tokens is too large" in err.message and len(script.requests) == 1 and sleeps.calls == []


async def test_500_forever_gives_up_after_max_retries(sleeps):
    script = Script(httpx.Response(500, json={"error": "overloaded"}))
    with pytest.raises(ProviderError) as info:
        await complete(provider(script, sleeps, max_retries=2), request())
    assert info.value.kind == "server" and len(script.requests) == 3 and "3 attempts" in info.value.message


async def test_timeout_becomes_provider_timeout(sleeps):
    script = Script(httpx.ReadTimeout("timed out"))
    with pytest.raises(ProviderError) as info:
        await complete(provider(script, sleeps, max_retries=1), request())
    assert info.value.kind == "timeout" and info.value.retryable and len(script.requests) == 2


@pytest.fixture
def silent_server():
    """A TCP server that accepts, optionally sends SSE headers and one event, then says nothing."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    conns: list[socket.socket] = []
    mode = {"headers": False}

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            conns.append(conn)
            conn.recv(65536)
            if mode["headers"]:
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
                )
                event = sse(chunk("a"), done=False)
                conn.sendall(f"{len(event):x}\r\n".encode() + event + b"\r\n")

    threading.Thread(target=serve, daemon=True).start()
    yield srv.getsockname()[1], mode
    srv.close()
    for c in conns:
        c.close()


async def test_timeout_before_headers_is_retried_then_reported(silent_server, sleeps):
    port, _ = silent_server
    p = provider(None, sleeps, base_url=f"http://127.0.0.1:{port}", timeout=0.2, max_retries=1)
    start = time.monotonic()
    with pytest.raises(ProviderError) as info:
        await complete(p, request())
    assert info.value.kind == "timeout" and info.value.retryable and len(sleeps.calls) == 1
    assert time.monotonic() - start < 2
    await p.aclose()


async def test_timeout_mid_stream_is_not_retried(silent_server, sleeps):
    port, mode = silent_server
    mode["headers"] = True
    p = provider(None, sleeps, base_url=f"http://127.0.0.1:{port}", timeout=0.3)
    got: list[str] = []
    with pytest.raises(ProviderError) as info:
        async for c in p.stream(request()):
            got.append(c)
    assert got == ["a"] and info.value.kind == "timeout" and sleeps.calls == []
    await p.aclose()


async def test_malformed_sse_lines_are_skipped(caplog):
    caplog.set_level(logging.DEBUG)
    body = b": keep-alive\n\ndata: {not json\n\ngarbage line\n\n" + sse(chunk("A"), "[1,2]", chunk("B"))
    script = Script(httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body))
    assert await complete(provider(script), request()) == "AB"
    assert "malformed" in caplog.text


async def test_done_ends_the_stream_and_error_payload_raises():
    script = Script(httpx.Response(200, content=sse(chunk("a"), done=True) + sse(chunk("after"), done=False)))
    assert await complete(provider(script), request()) == "a"
    script = Script(httpx.Response(200, content=sse(chunk("a"), {"error": {"message": "context overflow"}})))
    with pytest.raises(ProviderError, match="context overflow"):
        await complete(provider(script), request())


async def test_non_json_body():
    script = Script(httpx.Response(200, headers={"content-type": "text/html"}, content=b"<html>hello</html>"))
    with pytest.raises(ProviderError, match="no completion events") as info:
        await complete(provider(script), request())
    assert info.value.kind == "server"
    script = Script(httpx.Response(200, json={"choices": [{"message": {"content": "whole"}}]}))
    assert await complete(provider(script), request()) == "whole"
    script = Script(httpx.Response(200, headers={"content-type": "application/json"}, content=b"{oops"))
    with pytest.raises(ProviderError, match="not a chat completion"):
        await complete(provider(script), request())


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_connection_refused_after_retries(sleeps):
    p = provider(None, sleeps, base_url=f"http://127.0.0.1:{closed_port()}", max_retries=2)
    with pytest.raises(ProviderError) as info:
        await complete(p, request())
    assert info.value.kind == "unreachable" and len(sleeps.calls) == 2 and "3 attempts" in info.value.message
    await p.aclose()


async def test_api_key_never_in_errors_or_logs(caplog, sleeps):
    caplog.set_level(logging.DEBUG)
    echo = {"error": {"message": f"Incorrect API key provided: {SECRET}"}}
    for status in (401, 500):
        script = Script(httpx.Response(status, json=echo))
        with pytest.raises(ProviderError) as info:
            await complete(provider(script, sleeps, max_retries=1), request())
        assert SECRET not in info.value.message and SECRET not in str(info.value) and "***" in info.value.message
    script = Script(httpx.Response(200, content=sse({"error": {"message": f"bad key {SECRET}"}})))
    with pytest.raises(ProviderError) as info:
        await complete(provider(script), request())
    assert SECRET not in str(info.value)
    assert SECRET not in caplog.text and SECRET[4:] not in caplog.text


async def test_missing_key_variable_is_a_config_error(monkeypatch):
    monkeypatch.delenv("TEST_KEY")
    with pytest.raises(ProviderError, match="TEST_KEY is not set") as info:
        await complete(provider(Script(ok_sse("x"))), request())
    assert info.value.kind == "config"


async def test_cancellation_closes_the_http_stream_at_once():
    closed = anyio.Event()

    async def endless():
        try:
            while True:
                yield sse(chunk("tick "), done=False)
                await anyio.sleep(0.05)
        finally:
            closed.set()

    script = Script(lambda req: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=endless()))
    got: list[str] = []
    start = time.monotonic()
    with anyio.move_on_after(0.3):
        await complete(provider(script), request(), on_delta=lambda c: _append(got, c))
    assert time.monotonic() - start < 1.0 and len(got) >= 2
    with anyio.fail_after(1):
        await closed.wait()


async def _append(got: list[str], c: str) -> None:
    got.append(c)


def test_props_url_is_at_the_servers_root():
    from council.providers.openai_compat import props_url

    assert props_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/props"
    assert props_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/props"
    assert props_url("http://localhost:8080/llama/v1/chat/completions") == "http://localhost:8080/llama/props"


async def test_parallel_calls_come_from_a_local_servers_props_asked_once():
    """llama.cpp's server says its slots in ``/props`` (``total_slots``); the answer is kept for the provider's
    life. A remote server is never asked (it is metered: auto never speculates there); two models on one server
    share its slots (one backend)."""
    script = Script(httpx.Response(200, json={"total_slots": 4, "model_path": "m.gguf"}))
    local = provider(script, base_url="http://127.0.0.1:8080/v1")
    assert await local.parallel_calls() == 4 and await local.parallel_calls() == 4
    assert [str(r.url) for r in script.requests] == ["http://127.0.0.1:8080/props"]
    other_model = provider(script, base_url="http://localhost:8080", model="n")
    assert other_model.backend() == local.backend() != provider(base_url="http://127.0.0.1:8081/v1").backend()
    remote = Script(httpx.Response(200, json={"total_slots": 8}))
    assert await provider(remote).parallel_calls() == 1 and remote.requests == []


@pytest.mark.parametrize("answer", [
    httpx.Response(404, text="File Not Found"),  # llama-cpp-python's server, vLLM, LM Studio: no such page
    httpx.Response(200, json={"total_slots": True}), httpx.Response(200, json={"total_slots": 0}),
    httpx.Response(200, json=[4]), httpx.Response(200, text="<html>not json</html>"),
])
async def test_a_server_that_does_not_say_its_slots_runs_one_request_at_a_time(answer):
    script = Script(answer)
    p = provider(script, base_url="http://127.0.0.1:8080/v1")
    assert await p.parallel_calls() == 1 and await p.parallel_calls() == 1
    assert len(script.requests) == 1  # an answer that says nothing is an answer: not asked again


async def test_a_server_that_fails_or_hangs_on_props_counts_as_one_within_the_bound_and_is_asked_again_later(
        monkeypatch):
    from council.providers import http_common

    def loading() -> Script:  # llama.cpp's server while it loads the model, then ready with two slots
        return Script(httpx.Response(503, json={"error": {"message": "Loading model"}}),
                      httpx.Response(200, json={"total_slots": 2}))

    failing = loading()
    p = provider(failing, base_url="http://127.0.0.1:8080/v1")
    assert await p.parallel_calls() == 1  # loading: taken as one, not asked again within the minute
    assert await p.parallel_calls() == 1 and len(failing.requests) == 1
    monkeypatch.setattr(http_common, "SLOTS_RETRY_SECONDS", 0.0)  # the minute has passed at once
    again = loading()
    later = provider(again, base_url="http://127.0.0.1:8080/v1")
    assert await later.parallel_calls() == 1 and await later.parallel_calls() == 2 and len(again.requests) == 2
    refused = Script(httpx.ConnectError("connection refused"))
    assert await provider(refused, base_url="http://127.0.0.1:8080/v1").parallel_calls() == 1
    with socket.socket() as listener:  # a server that accepts the connection and never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        silent = provider(base_url=f"http://127.0.0.1:{listener.getsockname()[1]}/v1")
        began = time.monotonic()
        assert await silent.parallel_calls() == 1
        assert time.monotonic() - began < http_common.SLOTS_PROBE_SECONDS + 1.0
