"""The word-matching kit routing, the decision memory and the new-problem detector share: inflected forms meet in
English and Russian, words routing tells apart stay apart, stop words and numbers carry no meaning."""

from __future__ import annotations

import sys
import threading

from council.word_match import content_stems, stem, tokenize, words


def test_inflected_forms_meet():
    assert len({stem(w) for w in ("release", "releases", "releasing", "released")}) == 1
    assert stem("migrate") == stem("migration") == stem("migrating")
    assert stem("релизы") == stem("релизов") == stem("релиз")
    assert stem("пароли") == stem("пароль")


def test_words_snowball_would_merge_stay_apart():
    assert stem("production") != stem("product") and stem("production") == stem("productions")
    assert stem("shipping") != stem("ship")
    assert stem("personal") != stem("person")
    assert stem("experiment") == stem("experiments") != stem("experience")


def test_words_fold_case_yo_apostrophes_and_hyphens():
    assert words("What's the BEST on-call plan? Ёлка") == ["whats", "the", "best", "on", "call", "plan", "елка"]


def test_stop_words_one_letter_words_and_numbers():
    assert tokenize("Should we split the monolith into services?") == ["split", "monolith", "servic"]
    assert tokenize("the a", drop_stopwords=False) == ["the", "a"]
    assert content_stems("Стоит ли нам 2 сервиса или 3?") == {stem("сервиса")}


def test_stemming_from_threads_gives_the_same_stems():
    """The memory ranks in a worker thread while routing stems on the event loop's: a Snowball stemmer keeps its
    state while it works, so two threads at once must not mix their words."""
    forms = [f"{base}{end}" for base in ("deploy", "secur", "migrat", "releas", "пароль", "релиз")
             for end in ("ing", "ed", "es", "ment", "ов", "ами")]
    want = {w: stem(w) for w in forms}
    got: list[dict[str, str]] = []

    def work() -> None:
        for _ in range(30):
            stem.cache_clear()
            got.append({w: stem(w) for w in forms})

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert all(g == want for g in got)
