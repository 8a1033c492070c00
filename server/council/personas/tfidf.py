"""Lexical rankers in pure Python: TF-IDF cosine and word overlap (Jaccard), plus the tokenizer they share.

The tokenizer lowercases, folds ``ё``, drops English and Russian stop words and strips common suffixes of both
languages ("releases"/"releasing" → "releas", "релизы"/"релизов" → "релиз"), so inflected forms meet. It is
deliberately crude: routing needs robust overlap, not linguistics.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
_CYRILLIC = re.compile(r"[а-я]")

STOPWORDS = frozenset("""
a an the and or but if then else between among within without via vs versus etc should would next
new best better good thing things lot really way ways try of to in on at by for with from into onto
over under about as is are was were be been being am do does did done have has had having i me my we
us our you your he she it its they them their this that these those there here what which who whom
whose when where why how can could will shall may might must not no nor so too very just also than
only own same such both each few more most other some any all again further once up down out off s t
don doesn isn aren wasn weren let lets get got make want need like и в во не что он на я с со как а
то все она так его но да ты к у же вы за бы по только ее мне было вот от меня еще нет о из ему
теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж вам ведь там
потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего
раз тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь этом один почти
мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над
больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед
иногда лучше чуть том нельзя такой им более всегда конечно всю между нам нужно наш наша наши это
""".split())

_EN_SUFFIXES = ("ations", "ation", "ings", "ing", "ments", "ment", "ness", "ities", "ity", "ies", "ied",
                "ers", "er", "ed", "es", "s", "e", "y")
_RU_SUFFIXES = tuple(sorted("""
иями ями ами ого его ому ему ыми ими ией ий ый ой ая яя ое ее ые ие ов ев ам ям ах ях ом ем ую юю ть ти ешь ет
ют ут ит ат ят ся сь ла ли ло а я о е ы и у ю ь й
""".split(), key=len, reverse=True))


def stem(word: str) -> str:
    """A light two-pass suffix stripper for English and Russian; stems keep three or four letters at least."""
    suffixes = _RU_SUFFIXES if _CYRILLIC.search(word) else _EN_SUFFIXES
    for _ in range(2):
        for suffix in suffixes:
            if word.endswith(suffix) and len(word) - len(suffix) >= (3 if len(suffix) == 1 else 4):
                if suffix == "s" and word[-2] in "sui":
                    continue
                word = word[: -len(suffix)]
                break
        else:
            break
    return word


def words(text: str) -> list[str]:
    """Surface words: lowercase, ``ё`` folded, apostrophes dropped, hyphenated words split."""
    text = text.lower().replace("ё", "е").replace("\u2019", "'")
    return [w for token in _WORD.findall(text) for w in token.replace("'", "").split("-") if w]


def tokenize(text: str, *, drop_stopwords: bool = True) -> list[str]:
    """Stemmed tokens of ``text`` (stop words dropped unless asked otherwise)."""
    return [stem(w) for w in words(text) if not (drop_stopwords and (w in STOPWORDS or len(w) < 2))]


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
        result = []
        for doc in docs:
            d = set(tokenize(doc))
            union = q | d
            result.append(len(q & d) / len(union) if union else 0.0)
        return result
