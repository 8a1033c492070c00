"""How the decision memory compares questions when the embedding model is not warm: TF-IDF cosine over stemmed
words (:mod:`council.word_match`'s tokens; ``council.personas.tfidf``'s IDF and unit vectors), where a word of a
kept question that begins or ends with a word of the new question, or that the new word begins or ends with, counts
as that word when the shorter one has at least :data:`MIN_SHARED` letters: "monolithic" meets "monolith",
"microservices" meets "services". Paraphrases that change the form of a word, or use its compound, are recalled;
questions that share only short or common words are not (``store.THRESHOLDS['tfidf']``).

The method keeps the name ``tfidf`` (what ``memory.recalled`` and ``council_decisions`` report). Routing keeps
the plain :class:`~council.personas.tfidf.TfidfRanker`: persona descriptions are not questions.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from council.personas.tfidf import cosine, idf_of, unseen_idf, vector
from council.word_match import tokenize

MIN_SHARED = 5  # letters of the shorter word, for a prefix or suffix to count as the same word


@lru_cache(maxsize=20_000)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


def related(a: str, b: str) -> bool:
    """``a`` and ``b`` are one word for the memory: equal, or the shorter begins or ends the longer."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return short == long or (len(short) >= MIN_SHARED and (long.startswith(short) or long.endswith(short)))


class QuestionRanker:
    """TF-IDF cosine between a question and kept questions, a kept word read as the new question's word when they
    are :func:`related`."""

    name = "tfidf"

    def score(self, query: str, docs: list[str]) -> list[float]:
        if not docs:
            return []
        asked = _tokens(query)
        kept = [_tokens(d) for d in docs]
        wanted = sorted(set(asked), key=len, reverse=True)
        same = {w: t for w in {w for words in kept for w in words}.difference(asked)
                for t in reversed(wanted) if related(w, t)}  # the longest related query word wins
        counts = [Counter(same.get(w, w) for w in words) for words in kept]
        idf = idf_of(counts)
        q = vector(Counter(asked), idf, default_idf=unseen_idf(len(docs)))
        return [round(cosine(q, vector(c, idf, default_idf=0.0)), 6) for c in counts]
