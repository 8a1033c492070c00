"""The words of everything the council writes for people, one catalog per language (``en.toml``, ``ru.toml``).

A key is a table and a key in it (``[clarify] council`` → ``clarify.council``); its value a ``str.format`` template or,
for a count, its plural forms (:func:`plural_index`). :func:`t` and :func:`n` write in the language :func:`speaking`
set for the context, else English. A catalog is read on its first lookup, not on import: ``council.errors`` imports
this module before ``initialize`` is answered, and the start-up must not pay the parse.

Why TOML tables and not gettext/Babel: the texts are short templates composed by code, the plural rule of the two
languages is four lines, and a table needs no compiled ``.mo`` files in the wheel or the VSIX's bootstrap; gettext
would add a build step and give no guarantee a table does not (the completeness test checks keys and placeholders).
"""

from __future__ import annotations

import string
from contextvars import ContextVar
from functools import cache, lru_cache
from pathlib import Path

Entry = str | tuple[str, ...]

LANGUAGES: tuple[str, ...] = ("en", "ru")
DEFAULT = "en"

_current: ContextVar[str] = ContextVar("council_language", default=DEFAULT)


@cache
def catalog(lang: str) -> dict[str, Entry]:
    """``lang``'s catalog, read from ``<lang>.toml`` beside this module the first time it is asked for."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    out: dict[str, Entry] = {}

    def flatten(table: dict, prefix: str) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                flatten(value, f"{prefix}{key}.")
            else:
                out[prefix + key] = tuple(value) if isinstance(value, list) else value

    flatten(tomllib.loads(Path(__file__).with_name(f"{lang}.toml").read_text(encoding="utf-8")), "")
    return out


def supported(language: str | None) -> str | None:
    """``language`` as one of :data:`LANGUAGES` (``ru-RU``, ``RU`` → ``ru``), or None when no catalog has it."""
    if not language:
        return None
    base = language.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else None


def language() -> str:
    return _current.get()


class speaking:  # lower case: used as the function it was, ``with speaking(lang):``
    """Write in ``lang`` (English when it has no catalog) inside the ``with`` block. A plain context manager, not a
    generator one: the narrator enters one for every event it words."""

    __slots__ = ("_lang", "_token")

    def __init__(self, lang: str | None) -> None:
        self._lang = _supported(lang) if lang else DEFAULT

    def __enter__(self) -> str:
        self._token = _current.set(self._lang)
        return self._lang

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)


@lru_cache(maxsize=64)
def _supported(lang: str) -> str:
    return supported(lang) or DEFAULT


def plural_index(lang: str, count: int) -> int:
    """Which plural form ``count`` takes: English one/other; Russian one (1, 21), few (2–4, 22–24), many."""
    if lang == "ru":
        n10, n100 = abs(count) % 10, abs(count) % 100
        if n10 == 1 and n100 != 11:
            return 0
        return 1 if 2 <= n10 <= 4 and not 12 <= n100 <= 14 else 2
    return 0 if count == 1 else 1


def _entry(key: str) -> Entry:
    found = catalog(_current.get()).get(key)
    return found if found is not None else catalog(DEFAULT)[key]


def known(key: str) -> bool:
    """Whether the catalogs have ``key`` (for keys made from data, such as an enum value)."""
    return key in catalog(DEFAULT)


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
    forms = entry if isinstance(entry, tuple) else (entry,)
    return {name.split(".")[0].split("[")[0] for form in forms
            for _, name, _, _ in string.Formatter().parse(form) if name}


def texts(lang: str) -> list[str]:
    """Every fixed text of ``lang``'s catalog with its placeholders cut out: the pieces a rendering in another
    language must not contain (tests look for them)."""
    out = []
    for entry in catalog(lang).values():
        for form in entry if isinstance(entry, tuple) else (entry,):
            out += [literal for literal, _, _, _ in string.Formatter().parse(form)]
    return out
