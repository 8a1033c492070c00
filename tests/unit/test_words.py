"""The word catalogs: every key in every language, with the same placeholders and plural shapes; Russian plurals;
the language follows the context it was set for."""

from __future__ import annotations

import asyncio
import string

import pytest

from council import words
from council.words import n, speaking, t

PLURAL_FORMS = {"en": 2, "ru": 3}


@pytest.mark.parametrize("lang", [x for x in words.LANGUAGES if x != "en"])
def test_every_language_has_every_key_with_the_same_placeholders(lang):
    en, other = words.catalog("en"), words.catalog(lang)
    assert sorted(set(en) - set(other)) == [] and sorted(set(other) - set(en)) == []
    differ = [k for k in en if words.placeholders(en[k]) != words.placeholders(other[k])]
    assert differ == []
    shapes = [k for k in en if isinstance(en[k], tuple) != isinstance(other[k], tuple)]
    assert shapes == []


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_counts_have_their_language_s_plural_forms_and_fill_n(lang):
    for key, entry in words.catalog(lang).items():
        if isinstance(entry, tuple):
            assert len(entry) == PLURAL_FORMS[lang], key
            assert all("{n}" in form for form in entry), key


def test_no_empty_text_and_translations_differ_from_english():
    en, ru = words.catalog("en"), words.catalog("ru")
    assert all(ru[k] for k in ru)
    same = [k for k in en if en[k] == ru[k] and any(c.isalpha() for c in literal(en[k]))]
    products = ["provider.claude", "provider.codex", "provider.copilot", "provider.gemini", "provider.ollama"]
    assert sorted(same) == ["http", *products]  # a protocol and product names


def literal(entry: words.Entry) -> str:
    """An entry's text without its placeholders."""
    return "".join(literal for form in (entry if isinstance(entry, tuple) else (entry,))
                   for literal, _, _, _ in string.Formatter().parse(form))


@pytest.mark.parametrize("count, form", [(1, "1 советник"), (2, "2 советника"), (4, "4 советника"),
                                         (5, "5 советников"), (11, "11 советников"), (12, "12 советников"),
                                         (21, "21 советник"), (22, "22 советника"), (25, "25 советников"),
                                         (111, "111 советников"), (0, "0 советников")])
def test_russian_plurals(count, form):
    with speaking("ru"):
        assert n(count, "advisor") == form


def test_language_names_are_read_loosely_and_unknown_ones_fall_back_to_english():
    assert [words.supported(x) for x in ("ru", "RU", "ru-RU", "ru_UA", "en-GB", "de", "", None)] == \
        ["ru", "ru", "ru", "ru", "en", None, None, None]
    with speaking("de"):
        assert t("answer.heading") == "## The council's answer"
    with speaking("ru-RU"):
        assert t("answer.heading") == "## Ответ совета"
    assert words.language() == "en"


async def test_the_language_is_per_task():
    seen: dict[str, str] = {}

    async def run(lang: str) -> None:
        with speaking(lang):
            await asyncio.sleep(0.01)
            seen[lang] = t("answer.heading")

    await asyncio.gather(run("ru"), run("en"))
    assert seen == {"ru": "## Ответ совета", "en": "## The council's answer"}
