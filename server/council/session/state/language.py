"""Which language a session writes in: the one asked for, else the question's, else the client's display language.

Pure and light (no models), so ``council ask`` can tell before the sidecar answers which language to print its
first lines in; ``council.session.calls.prompts`` re-exports it.
"""

from __future__ import annotations

import re

from council.words import DEFAULT, supported

_WORD = re.compile(r"[^\W\d_]{3,}")  # a word of three letters or more
MIN_WORDS = 2  # a question with fewer such words ("k8s vs ECS?", "1234") does not tell its language


def detect_language(text: str) -> str:
    """The question's language: ``ru`` when a good share of its letters are Cyrillic, else ``en``."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "en"
    cyrillic = sum(1 for c in letters if "\u0400" <= c <= "\u04ff")
    return "ru" if cyrillic / len(letters) > 0.3 else "en"


def session_language(text: str, asked: str | None = None, ui_language: str | None = None) -> str:
    """The language a session writes in: the one asked for, else the question's, else the client's display
    language when the question has too few words to tell, else English."""
    if supported(asked):
        return supported(asked) or DEFAULT
    if len(_WORD.findall(text)) >= MIN_WORDS:
        return detect_language(text)
    return supported(ui_language) or DEFAULT
