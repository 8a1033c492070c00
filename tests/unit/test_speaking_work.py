"""``speaking`` (the language the narrator words an event in) as the narrator uses it, once an event (issue 34: the
engine's CPU per session): it behaves as before — nested, reset after an error, English for a language without a
catalog, the language it set as its value — and reads a language tag once, not on every event.
"""

from __future__ import annotations

import pytest

import council.words as words
from council.words import language, speaking, t


def test_speaking_sets_nests_and_resets():
    assert language() == "en"
    with speaking("ru-RU") as lang:
        assert lang == "ru" and language() == "ru"
        with speaking("xx") as inner:
            assert inner == "en" and language() == "en"
        with speaking(None) as none:
            assert none == "en"
        assert language() == "ru" and t("field.summary") != words.catalog("en")["field.summary"]
    assert language() == "en"
    with pytest.raises(RuntimeError), speaking("RU"):
        assert language() == "ru"
        raise RuntimeError("boom")
    assert language() == "en"


def test_a_language_tag_is_read_once(monkeypatch):
    seen: list[str | None] = []
    real = words.supported
    monkeypatch.setattr(words, "supported", lambda lang: seen.append(lang) or real(lang))
    for _ in range(100):
        with speaking("ru-KZ"):
            assert language() == "ru"
    assert seen.count("ru-KZ") <= 1  # once an event before
