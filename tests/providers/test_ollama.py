"""Ollama provider against a fake NDJSON server (httpx.MockTransport)."""

from __future__ import annotations

import json

import httpx
import pytest
from provider_helpers import Script, request

from council.config import ProviderConfig
from council.providers.base import ProviderError, complete
from council.providers.ollama import OllamaProvider, has_model, list_models

SCHEMA = {
    "type": "object",
    "properties": {"vote": {"$ref": "#/$defs/Vote"}},
    "required": ["vote"],
    "$defs": {"Vote": {"type": "string", "enum": ["yes", "no"]}},
}


def ndjson(*texts: str) -> bytes:
    lines = [{"model": "m", "message": {"role": "assistant", "content": t}, "done": False} for t in texts]
    lines.append({"model": "m", "message": {"role": "assistant", "content": ""}, "done": True})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def provider(script: Script, **cfg) -> OllamaProvider:
    base = {"kind": "ollama", "model": "qwen2.5:0.5b", "base_url": "http://ollama.test:11434"}
    return OllamaProvider(ProviderConfig(**{**base, **cfg}), transport=script.transport, sleep=_no_sleep)


async def _no_sleep(_: float) -> None:
    return None


async def test_streams_ndjson_and_passes_format_schema():
    script = Script(
        httpx.Response(
            200,
            headers={"content-type": "application/x-ndjson"},
            content=ndjson('{"vote"', ': "yes"}') + b"not json\n\n",
        )
    )
    p = provider(script, options={"num_ctx": 8192, "keep_alive": "5m"})
    chunks = [c async for c in p.stream(request(json_schema=SCHEMA, max_tokens=50, temperature=0.2))]
    assert chunks == ['{"vote"', ': "yes"}'] and json.loads("".join(chunks)) == {"vote": "yes"}
    req = script.requests[0]
    assert str(req.url) == "http://ollama.test:11434/api/chat"
    body = script.body()
    assert body["stream"] is True and body["model"] == "qwen2.5:0.5b"
    assert body["format"]["properties"]["vote"] == {"type": "string", "enum": ["yes", "no"]}
    assert "$defs" not in body["format"]
    assert body["options"] == {"temperature": 0.2, "num_predict": 50, "num_ctx": 8192} and body["keep_alive"] == "5m"


async def test_no_format_without_schema():
    script = Script(httpx.Response(200, content=ndjson("hi")))
    assert await complete(provider(script), request()) == "hi"
    assert "format" not in script.body()


async def test_missing_model_says_how_to_pull():
    script = Script(httpx.Response(404, json={"error": "model 'qwen2.5:0.5b' not found"}))
    with pytest.raises(ProviderError, match=r"ollama pull qwen2\.5:0\.5b") as info:
        await complete(provider(script), request())
    assert info.value.kind == "client"


async def test_error_line_mid_stream():
    body = ndjson("a")[:-1] + b"\n" + json.dumps({"error": "out of memory"}).encode() + b"\n"
    script = Script(httpx.Response(200, content=body.replace(b'"done": true', b'"done": false')))
    with pytest.raises(ProviderError, match="out of memory"):
        await complete(provider(script), request())


async def test_503_is_retried():
    script = Script(httpx.Response(503, text="loading"), httpx.Response(200, content=ndjson("ok")))
    assert await complete(provider(script), request()) == "ok" and len(script.requests) == 2


async def test_check_and_list_models():
    tags = {"models": [{"name": "llama3.2:latest"}, {"name": "qwen2.5:0.5b"}]}
    script = Script(httpx.Response(200, json=tags))
    assert await list_models("http://ollama.test:11434", transport=script.transport) == [
        "llama3.2:latest",
        "qwen2.5:0.5b",
    ]
    assert has_model(["llama3.2:latest"], "llama3.2") and not has_model(["llama3.2:latest"], "llama3")
    status = await provider(script).check()
    assert status.available and "pulled" in status.detail
    status = await provider(script, model="mistral").check()
    assert not status.available and "ollama pull mistral" in status.detail
    down = Script(httpx.ConnectError("refused"))
    status = await provider(down).check()
    assert not status.available and "ollama serve" in status.detail
