"""Council personas: contracts as data (``personas/*.toml``), their loader, and request → persona routing.

``load_personas()`` reads the contracts into a :class:`PersonaLibrary`; ``select_personas()`` picks the
council for a request and says why. Rankers (embeddings, TF-IDF, word overlap) live in ``routing``,
``embeddings`` and ``tfidf``; torch is imported only by ``EmbeddingRanker.warm_up()``.
"""

from council.personas.contract import DOMAINS, PersonaContract
from council.personas.embeddings import EmbeddingRanker, EmbeddingsNotReady
from council.personas.lexicon import classify
from council.personas.loader import PersonaLibrary, PersonaLoadError, UnknownPersonaError, load_personas
from council.personas.routing import (
    OverlapRanker,
    Ranker,
    Selection,
    TfidfRanker,
    default_ranker,
    select_personas,
    start_embedding_warmup,
)

__all__ = [
    "DOMAINS",
    "EmbeddingRanker",
    "EmbeddingsNotReady",
    "OverlapRanker",
    "PersonaContract",
    "PersonaLibrary",
    "PersonaLoadError",
    "Ranker",
    "Selection",
    "TfidfRanker",
    "UnknownPersonaError",
    "classify",
    "default_ranker",
    "load_personas",
    "select_personas",
    "start_embedding_warmup",
]
