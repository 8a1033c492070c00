"""The word-matching kit routing, the decision memory and the new-problem detector share: inflected forms meet in
English and Russian, words routing tells apart stay apart, stop words and numbers carry no meaning; and the key the
lists an answer shows are kept each item once by."""

from __future__ import annotations

import sys
import threading

from council.word_match import content_stems, item_key, stem, tokenize, words


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


def test_a_list_item_is_the_same_item_whatever_its_case_spacing_or_full_stop():
    """One key for every list kept each item once (a later cycle's carried items, the counterpoints, the synthesis's
    and the consult result's lists, a hinge's assumption): the same words are one item, other words are not."""
    assert item_key("Ship it.") == item_key("ship  it") == item_key("  SHIP\tit... ") == "ship it"
    assert item_key("Выпустить релиз.") == item_key("выпустить  РЕЛИЗ")
    assert item_key("Straße") == item_key("STRASSE")  # casefolded, not only lowered
    assert item_key("Ship it") != item_key("Ship it now") and item_key("Ship it") != item_key("Skip it")
    assert item_key("Is it safe?") != item_key("Is it safe")  # only full stops go: a question stays one
    assert item_key("   ") == item_key(" . ") == ""  # a blank item: no key (the lists drop it)



def test_a_list_item_is_the_same_item_whether_its_letters_are_composed_or_not():
    """A model's tokens may write "й" as one character or as "и" and a combining breve (and "é" likewise): the same
    words, one item (they were two, e.g. the same risk listed twice in the answer). Unicode's default case folding
    keeps the rest: "İ" folds to "i" with a combining dot (only Turkish drops it), "ß" to "ss", a final sigma to σ."""
    import unicodedata

    for said in ("Выйти из проекта.", "Café crème", "Ёлка"):
        apart = unicodedata.normalize("NFD", said)
        assert apart != said and item_key(apart) == item_key(said.upper()) == item_key(said)
    assert item_key("ΣΟΦΟΣ") == item_key("σοφος") and item_key("Maße") == item_key("MASSE")
    assert item_key("İstanbul") == item_key("i\u0307stanbul") != item_key("istanbul")
    assert item_key("Ship 🚀") == item_key("ship  🚀.") != item_key("ship")
    assert item_key("") == item_key("...") == ""
