"""Persona names as people read them: a persona's name in the language being written (its contract's ``names``),
else its own name. Ids, the wire and the prompts keep the contract's ``name``; only what a person reads is localized.

Every loaded persona library tells this module its names (:func:`remember`); the session domain and the presentation
then name a persona with :func:`shown` inside :func:`council.words.speaking` (the moderator, no persona, has its name
in the catalogs).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from council.words import known, language, t

_NAMES: dict[str, dict[str, str]] = {}  # a persona's name → language → its name in that language


class Named(Protocol):
    name: str
    names: dict[str, str]


def remember(personas: Iterable[Named]) -> None:
    """Keep the localized names of ``personas`` (a later library's replace an earlier one's)."""
    for p in personas:
        _NAMES[p.name] = dict(p.names)


def shown(name: str) -> str:
    """``name`` (a persona's, or the moderator's) in the current language, when its contract (the catalog's
    ``participant`` table) has it there; else as it is."""
    localized = _NAMES.get(name, {}).get(language())
    if localized is None and known(f"participant.{name}"):
        return t(f"participant.{name}")
    return localized or name
