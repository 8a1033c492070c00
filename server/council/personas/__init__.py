"""Council personas: contracts as data (``personas/*.toml``), their loader, and request → persona routing.

``loader.load_personas()`` reads the contracts into a ``PersonaLibrary``; ``routing.select_personas()`` picks the
council for a request and says why. Rankers (embeddings, TF-IDF, word overlap) live in ``routing``,
``embeddings`` and ``tfidf``; torch is imported only by ``EmbeddingRanker.warm_up()``.
"""
