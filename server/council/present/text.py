"""Small markdown building blocks shared by the presentation modules."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any, TypeVar

from council.words import speaking, t

F = TypeVar("F", bound=Callable[..., str])


def in_session_language(fn: F) -> F:
    """Run ``fn(session, …)`` in the session's language (its first argument's ``settings.language``)."""
    @wraps(fn)
    def wrapper(s: Any, *args: Any, **kwargs: Any) -> str:
        with speaking(s.settings.language):
            return fn(s, *args, **kwargs)
    return wrapper  # type: ignore[return-value]


def bullets(items: Iterable[str]) -> str:
    return "".join(f"- {one_line(x)}\n" for x in items if x.strip())


def numbered(items: Iterable[str]) -> str:
    kept = [x for x in items if x.strip()]
    return "".join(f"{i}. {one_line(x)}\n" for i, x in enumerate(kept, 1))


def section(title: str, items: list[str], *, ordered: bool = False, level: int = 3) -> str:
    """A headed list, or nothing when the list is empty."""
    body = numbered(items) if ordered else bullets(items)
    return f"{'#' * level} {title}\n\n{body}\n" if body else ""


def one_line(text: str) -> str:
    """Collapse line breaks so a model's text cannot break out of a list item or a table cell."""
    return " ".join(text.split())


def clause(text: str) -> str:
    """A model's sentence set inside one of ours that ends it with its own full stop: on one line, without its
    trailing full stops ("changed position: the audit comes first.." read twice)."""
    return one_line(text).rstrip(". ")


def clipped(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")


def percent(share: float) -> str:
    return f"{share:.0%}"


def join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + t("and") + names[-1]


def grouped(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """The second items of ``pairs`` listed under their first, keys in first-seen order."""
    groups: dict[str, list[str]] = {}
    for key, item in pairs:
        groups.setdefault(key, []).append(item)
    return groups


def plural(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"
