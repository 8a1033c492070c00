"""Provider construction, default selection order, ${VAR} keys, persona mapping and doctor statuses."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from provider_helpers import SECRET

from council.config import ConfigError, CouncilConfig, ProviderConfig, load_config
from council.providers.base import ProviderError
from council.providers.ollama import OllamaProvider
from council.providers.openai_compat import OpenAICompatProvider
from council.providers.registry import build_provider, choose_default, provider_for_persona, provider_statuses


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def fake_ollama():
    """A real HTTP server on 127.0.0.1 answering /api/tags like Ollama."""
    models = {"models": [{"name": "qwen2.5:0.5b"}, {"name": "llama3.2:latest"}]}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(models).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_selection_explicit_default_wins():
    cfg = CouncilConfig(
        default="mine",
        ollama_url=closed_url(),
        providers={"mine": ProviderConfig(kind="openai", model="gpt-x")},
    )
    name, pc, reason = await choose_default(cfg, client_available=True)
    assert (name, pc.model) == ("mine", "gpt-x") and "configured" in reason


async def test_selection_missing_default_names_configured():
    cfg = CouncilConfig(default="nope", providers={"mine": ProviderConfig(kind="embedded")})
    with pytest.raises(ConfigError, match="configured: mine"):
        await choose_default(cfg, client_available=False)


async def test_selection_client_then_ollama_then_embedded(fake_ollama):
    cfg = CouncilConfig(ollama_url=closed_url())
    name, pc, reason = await choose_default(cfg, client_available=True)
    assert (name, pc.kind) == ("client", "client") and "client" in reason
    name, pc, reason = await choose_default(cfg, client_available=False)
    assert (name, pc.kind) == ("embedded", "embedded") and "embedded" in reason
    cfg = CouncilConfig(ollama_url=fake_ollama)
    name, pc, reason = await choose_default(cfg, client_available=False)
    assert (name, pc.kind, pc.model, pc.base_url) == ("ollama", "ollama", "qwen2.5:0.5b", fake_ollama)
    name, pc, _ = await choose_default(cfg, client_available=False, probe_ollama=False)
    assert pc.kind == "embedded"


async def test_selection_reuses_configured_entries_of_the_chosen_kind():
    cfg = CouncilConfig(
        ollama_url=closed_url(), providers={"small": ProviderConfig(kind="embedded", options={"n_ctx": 8192})}
    )
    name, pc, _ = await choose_default(cfg, client_available=False)
    assert name == "small" and pc.options == {"n_ctx": 8192}


def test_var_key_resolution(monkeypatch):
    monkeypatch.setenv("MY_KEY", SECRET)
    assert ProviderConfig(kind="openai", api_key="${MY_KEY}").resolve_api_key() == SECRET
    assert ProviderConfig(kind="openai", api_key="MY_KEY").resolve_api_key() == SECRET
    assert ProviderConfig(kind="openai").resolve_api_key() is None
    assert ProviderConfig(kind="openai", api_key="${X}").resolve_api_key({"X": "v"}) == "v"
    with pytest.raises(ConfigError, match="UNSET_KEY is not set"):
        ProviderConfig(kind="openai", api_key="${UNSET_KEY}").resolve_api_key({})
    with pytest.raises(ValueError) as info:
        ProviderConfig(kind="openai", api_key=SECRET)
    assert SECRET not in str(info.value)


def test_env_config(tmp_path):
    path = tmp_path / "council.toml"
    path.write_text(
        'default = "or"\n[providers.or]\nkind = "openai"\nmodel = "x/y"\n'
        'base_url = "https://openrouter.ai/api/v1"\napi_key = "${OPENROUTER_API_KEY}"\n'
        '[persona_providers]\nSkeptic = "or"\nDreamer = "ghost"\n'
    )
    cfg = load_config(path, env={})
    assert cfg.default == "or" and cfg.providers["or"].api_key_var() == "OPENROUTER_API_KEY"
    assert provider_for_persona(cfg, "skeptic") == "or" and provider_for_persona(cfg, "Skeptic") == "or"
    assert provider_for_persona(cfg, "Dreamer") is None and provider_for_persona(cfg, "Other") is None
    cfg = load_config(None, env={"COUNCIL_PROVIDER": "ollama", "COUNCIL_MODEL": "m", "COUNCIL_OLLAMA_URL": "http://x"})
    assert cfg.default == "env" and cfg.providers["env"].kind == "ollama" and cfg.ollama_url == "http://x"


def test_build_provider_kinds_and_errors():
    assert isinstance(build_provider(ProviderConfig(kind="openai", model="m")), OpenAICompatProvider)
    assert isinstance(build_provider(ProviderConfig(kind="ollama", model="m")), OllamaProvider)
    with pytest.raises(ProviderError, match="json_mode") as info:
        build_provider(ProviderConfig(kind="openai", options={"json_mode": "xml"}))
    assert info.value.kind == "config"
    with pytest.raises(ProviderError, match="needs a model"):
        build_provider(ProviderConfig(kind="ollama"))
    if importlib.util.find_spec("council.providers.client") is not None:
        with pytest.raises(ProviderError, match="council/complete"):
            build_provider(ProviderConfig(kind="client"))


@pytest.mark.skipif(
    importlib.util.find_spec("council.providers.scripted") is None,
    reason="providers/scripted.py not written yet",
)
def test_build_scripted():
    p = build_provider(ProviderConfig(kind="scripted"))
    assert p.id == "scripted"


async def test_provider_statuses(fake_ollama, monkeypatch):
    monkeypatch.setenv("K", SECRET)
    cfg = CouncilConfig(
        ollama_url=fake_ollama,
        providers={
            "down": ProviderConfig(kind="openai", model="m", base_url=closed_url(), api_key="${K}"),
            "nokey": ProviderConfig(kind="openai", model="m", api_key="${MISSING_K}"),
        },
    )
    infos = {i.id: i for i in await provider_statuses(cfg)}
    assert set(infos) == {"down", "nokey", "ollama", "embedded"}
    assert not infos["down"].available and "cannot reach" in infos["down"].detail
    assert not infos["nokey"].available and "MISSING_K" in infos["nokey"].detail
    assert infos["ollama"].available and infos["ollama"].model == "qwen2.5:0.5b"
    assert infos["embedded"].kind == "embedded" and infos["embedded"].detail
    assert all("\n" not in i.detail and SECRET not in i.detail for i in infos.values())


async def test_ollama_probe_gives_up_quickly_on_a_silent_port():
    with socket.socket() as silent:  # listens (the kernel accepts) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        cfg = CouncilConfig(ollama_url=f"http://127.0.0.1:{silent.getsockname()[1]}")
        start = time.monotonic()
        _, pc, _ = await choose_default(cfg, client_available=False)
        assert pc.kind == "embedded" and time.monotonic() - start < 1.0
