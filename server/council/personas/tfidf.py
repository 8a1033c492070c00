"""Lexical rankers in pure Python: TF-IDF cosine and word overlap (Jaccard) over the stemmed words of
:mod:`council.word_match`, the TF-IDF pieces (IDF, unit vectors, cosine) the decision memory's ranker reuses, and the
fallback chain routing and the memory both rank with (:func:`rank`).
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

from council.personas.embeddings import EmbeddingsNotReady
from council.word_match import tokenize

log = logging.getLogger(__name__)


class Ranker(Protocol):
    """Scores how well each document matches a query; higher is better, comparable within one call."""

    name: str

    def score(self, query: str, docs: list[str]) -> list[float]: ...


def rank(chain: Iterable[Ranker], query: str, docs: list[str],
         quiet: tuple[type[Exception], ...] = (EmbeddingsNotReady,)) -> tuple[Ranker, list[float]] | None:
    """The first ranker of ``chain`` that gives every document a score, with the scores (None: none did). A ranker
    that raises one of ``quiet`` (not ready yet) falls back with a debug line; any other failure is logged."""
    for ranker in chain:
        try:
            scores = [float(s) for s in ranker.score(query, docs)]
        except quiet:
            log.debug("ranker %s not ready; falling back", ranker.name)
            continue
        except Exception:
            log.exception("ranker %s failed; falling back", ranker.name)
            continue
        if len(scores) == len(docs):
            return ranker, scores
        log.warning("ranker %s returned %d scores for %d docs", ranker.name, len(scores), len(docs))
    return None


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    """The dot product of two unit vectors (:func:`vector`)."""
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(k, 0.0) for k, v in a.items())


def idf_of(counts: Sequence[Counter[str]]) -> dict[str, float]:
    """Smoothed inverse document frequency of every term of these documents' term counts."""
    df = Counter(term for c in counts for term in c)
    n = len(counts)
    return {term: math.log((1 + n) / (1 + k)) + 1.0 for term, k in df.items()}


def unseen_idf(n: int) -> float:
    """The IDF of a query word no one of ``n`` documents has: it still dilutes the query."""
    return math.log(1 + n) + 1.0


def vector(counts: Counter[str], idf: dict[str, float], default_idf: float) -> dict[str, float]:
    """Term counts as a unit TF-IDF vector (log-scaled term frequency; ``default_idf`` for terms ``idf`` lacks)."""
    vec = {t: (1.0 + math.log(c)) * idf.get(t, default_idf) for t, c in counts.items()}
    norm = math.sqrt(sum(v * v for v in vec.values()))
    return {t: v / norm for t, v in vec.items()} if norm else {}


class TfidfRanker:
    """TF-IDF cosine between a query and documents; IDF comes from the documents (cached per document set)."""

    name = "tfidf"
    full_match = 0.15  # a cosine this high is a clear match (a short request's best is mostly 0.05–0.3)

    def __init__(self) -> None:
        self._cache: dict[tuple[str, ...], tuple[dict[str, float], list[dict[str, float]]]] = {}

    def _index(self, docs: Sequence[str]) -> tuple[dict[str, float], list[dict[str, float]]]:
        key = tuple(docs)
        if key not in self._cache:
            counts = [Counter(tokenize(d)) for d in docs]
            idf = idf_of(counts)
            vectors = [vector(c, idf, default_idf=0.0) for c in counts]
            if len(self._cache) > 16:
                self._cache.clear()
            self._cache[key] = (idf, vectors)
        return self._cache[key]

    def score(self, query: str, docs: list[str]) -> list[float]:
        if not docs:
            return []
        idf, vectors = self._index(docs)
        q = vector(Counter(tokenize(query)), idf, default_idf=unseen_idf(len(docs)))
        return [round(cosine(q, v), 6) for v in vectors]


class OverlapRanker:
    """Jaccard overlap of stemmed word sets: the fallback that cannot fail."""

    name = "keywords"
    full_match = 0.04  # a short request shares a few words with a long contract: a Jaccard this high is clear

    def score(self, query: str, docs: list[str]) -> list[float]:
        q = set(tokenize(query))
        sets = [set(tokenize(doc)) for doc in docs]
        return [len(q & d) / len(q | d) if q or d else 0.0 for d in sets]
