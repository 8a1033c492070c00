"""Council personas: contracts as data (``personas/*.toml``, :mod:`~council.personas.loader`), and request → persona
routing (:mod:`~council.personas.routing`); torch is imported only by ``EmbeddingRanker.warm_up()``.
"""
