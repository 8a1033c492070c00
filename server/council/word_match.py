"""Word matching for English and Russian: surface words, one stop-word list and stems, shared by routing (the
TF-IDF and overlap rankers, the domain lexicon), the decision memory's question ranker and the new-problem detector;
and the key by which two items of a list say the same (:func:`item_key`, :func:`unique_items`), shared by every list
kept each item once.
Stems are Snowball's (Porter2 for English, Russian for a word with a Cyrillic letter), so inflected forms meet:
"releases"/"releasing" → "releas", "релизы"/"релизов" → "релиз".
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import snowballstemmer

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
_CYRILLIC = re.compile(r"[а-я]")

# The stop words of both languages, one list: data in stopwords.txt beside this module.
STOPWORDS = frozenset(Path(__file__).with_name("stopwords.txt").read_text(encoding="utf-8").split())

# Words Snowball would merge with a different word that routing tells apart (a KeywordMarker-style list): the
# production environment is not the product, logistics' shipping is not shipping a release, personal data is not a
# person, an experiment is not an experience, an engine is not an engineer, accessibility is not access.
_SEPARATE = {
    "production": "production", "productions": "production", "productivity": "productivity",
    "shipping": "shipping", "personal": "personal", "experiment": "experiment", "experiments": "experiment",
    "engine": "engine", "engines": "engine", "accessibility": "accessibility",
}
_STEMMERS = {"en": snowballstemmer.stemmer("english"), "ru": snowballstemmer.stemmer("russian")}
_STEMMING = threading.Lock()  # a Snowball stemmer keeps its state while it works; the memory ranks in a thread


def item_key(text: str) -> str:
    """What a list item says, for keeping each item once: casefolded, its white space collapsed, without trailing
    full stops ("Ship it." and "ship  it" are one item; '' for a blank one). Letters written as one character or as
    a base and its combining mark are one ("й" or "и" + U+0306, as a model's tokens may give either): Unicode's
    canonical caseless match, composed again."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFD", text).casefold())
    return " ".join(folded.split()).rstrip(".")


def unique_items(items: Iterable[str]) -> list[str]:
    """``items`` each once by :func:`item_key` (the first one's words, stripped), blank ones left out."""
    kept: dict[str, str] = {}
    for item in items:
        kept.setdefault(item_key(item), item.strip())
    kept.pop("", None)
    return list(kept.values())


def words(text: str) -> list[str]:
    """Surface words: lowercase, ``ё`` folded, apostrophes dropped, hyphenated words split."""
    text = text.lower().replace("ё", "е").replace("\u2019", "'")
    return [w for token in _WORD.findall(text) for w in token.replace("'", "").split("-") if w]


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """The Snowball stem of a lowercase word (Russian if it has a Cyrillic letter, else English)."""
    if word in _SEPARATE:
        return _SEPARATE[word]
    stemmer = _STEMMERS["ru" if _CYRILLIC.search(word) else "en"]
    with _STEMMING:
        return stemmer.stemWord(word)


def tokenize(text: str, *, drop_stopwords: bool = True) -> list[str]:
    """Stemmed words of ``text``, in order (stop words and one-letter words dropped unless asked otherwise)."""
    return [stem(w) for w in words(text) if not (drop_stopwords and (w in STOPWORDS or len(w) < 2))]


def content_stems(text: str) -> set[str]:
    """The stems of the words that carry meaning (no stop words, no one-letter words, no bare numbers)."""
    return {stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1 and not w.isdigit()}
