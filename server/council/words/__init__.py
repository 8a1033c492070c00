"""The words of everything the council writes for people, one catalog per language (``en``, ``ru``).

A catalog (``council.words.en``, ``council.words.ru``) maps a key to a ``str.format`` template, or, for a count,
to its plural forms (English: one, other; Russian: one, few, many, chosen by :func:`plural_index`). Both catalogs
hold the same keys with the same placeholders (a test checks it). The presentation asks for words with
:func:`t` (a template) and :func:`n` (a count and its noun); the language is the one set by :func:`speaking` for
the current context (the narrator and the service set the session's), English when nothing set one.

Why a typed dict and not gettext/Babel: the texts are short templates composed by code, the plural rule of the two
languages is four lines, and a dict needs no compiled ``.mo`` files in the wheel or the VSIX's bootstrap; gettext
would add a build step and give no guarantee a dict does not (the completeness test checks keys and placeholders).
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from council.words import en, en_consult, en_errors, en_outcome, ru, ru_consult, ru_errors, ru_outcome

Entry = str | tuple[str, ...]

LANGUAGES: tuple[str, ...] = ("en", "ru")
CATALOGS: dict[str, dict[str, Entry]] = {
    "en": {**en.WORDS, **en_outcome.WORDS, **en_errors.WORDS, **en_consult.WORDS},
    "ru": {**ru.WORDS, **ru_outcome.WORDS, **ru_errors.WORDS, **ru_consult.WORDS},
}
DEFAULT = "en"

_current: ContextVar[str] = ContextVar("council_language", default=DEFAULT)


def supported(language: str | None) -> str | None:
    """``language`` as one of :data:`LANGUAGES` (``ru-RU``, ``RU`` → ``ru``), or None when no catalog has it."""
    if not language:
        return None
    base = language.strip().lower().replace("_", "-").split("-")[0]
    return base if base in CATALOGS else None


def language() -> str:
    """The language the council writes in here and now."""
    return _current.get()


@contextmanager
def speaking(lang: str | None) -> Iterator[str]:
    """Write in ``lang`` (English when it has no catalog) inside the ``with`` block."""
    token = _current.set(supported(lang) or DEFAULT)
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def plural_index(lang: str, count: int) -> int:
    """Which plural form ``count`` takes: English one/other; Russian one (1, 21), few (2–4, 22–24), many."""
    if lang == "ru":
        n10, n100 = abs(count) % 10, abs(count) % 100
        if n10 == 1 and n100 != 11:
            return 0
        return 1 if 2 <= n10 <= 4 and not 12 <= n100 <= 14 else 2
    return 0 if count == 1 else 1


def _entry(key: str) -> Entry:
    found = CATALOGS[_current.get()].get(key)
    return found if found is not None else CATALOGS[DEFAULT][key]


def known(key: str) -> bool:
    """Whether the catalogs have ``key`` (for keys made from data, such as an enum value)."""
    return key in CATALOGS[DEFAULT]


def t(key: str, **values: object) -> str:
    """The catalog's text for ``key`` in the current language, with ``values`` filled in."""
    entry = _entry(key)
    if isinstance(entry, tuple):
        raise TypeError(f"{key} is a count: use n()")
    return entry.format(**values) if values else entry


def n(count: int, key: str, **values: object) -> str:
    """``count`` with its noun (``key`` names plural forms), e.g. ``n(3, "advisor")`` → "3 advisors"."""
    entry = _entry(key)
    if not isinstance(entry, tuple):
        raise TypeError(f"{key} is not a count")
    form = entry[min(plural_index(_current.get(), count), len(entry) - 1)]
    return form.format(n=count, **values)


def placeholders(entry: Entry) -> set[str]:
    """The names a template (every form of a count) fills in."""
    forms = entry if isinstance(entry, tuple) else (entry,)
    return {name.split(".")[0].split("[")[0] for form in forms
            for _, name, _, _ in string.Formatter().parse(form) if name}


def texts(lang: str) -> list[str]:
    """Every fixed text of ``lang``'s catalog with its placeholders cut out: the pieces a rendering in another
    language must not contain (tests look for them)."""
    out = []
    for entry in CATALOGS[lang].values():
        for form in entry if isinstance(entry, tuple) else (entry,):
            out += [literal for literal, _, _, _ in string.Formatter().parse(form)]
    return out
