"""Request classification over the persona domain tags, by English and Russian keyword lexicons (``lexicon.toml``,
read on the first classification).

Lexicon entries are ordinary words, or phrases with ``_`` between words, stemmed with the same tokenizer as
the request, so "tokens", "token" and "токены" meet their entries. A phrase counts double; a word marked ``~``
(context such as "team" in "an 8-person team") counts :data:`WEAK`. The ``[also]`` table lists words that concern
a second domain as well, at :data:`ALSO_WEIGHT` (moving a platform to Kubernetes or the cloud is a security question
too). :func:`classify` returns the top domain (``"general"`` when nothing matched) and each domain's share of the hits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from council.config import tomllib
from council.personas.contract import DOMAINS
from council.word_match import stem, words

GENERAL = "general"
WEAK = 0.4  # a "~word": context more often than subject
ALSO_WEIGHT = 0.6  # a word's weight in the second domain ``[also]`` gives it

# Tie-break order: the more specific domain wins a tie.
PRIORITY = ("security", "legal", "finance", "reliability", "architecture", "data", "people", "customer",
            "product", "growth", "operations", "workflow", "strategy")


@dataclass(frozen=True)
class _Entry:
    domain: str
    stems: tuple[str, ...]
    weight: float


@dataclass
class Classification:
    """The outcome of :func:`classify_detail`: top domain, per-domain shares and the words that matched."""

    classification: str
    scores: dict[str, float]
    matches: dict[str, list[str]] = field(default_factory=dict)


@cache
def _by_first() -> dict[str, list[_Entry]]:
    """The lexicon's entries by their first stem, read from ``lexicon.toml`` on the first classification."""
    data = tomllib.loads(Path(__file__).with_name("lexicon.toml").read_text(encoding="utf-8"))
    assert set(data["lexicon"]) == set(DOMAINS) == set(PRIORITY)
    entries: dict[tuple[str, tuple[str, ...]], _Entry] = {}  # "token" and "tokens" are one entry
    for lexicon, factor in ((data["lexicon"], 1.0), (data["also"], ALSO_WEIGHT)):
        for domain, text in lexicon.items():
            for item in text.split():
                weak = item.startswith("~")
                stems = tuple(stem(w) for w in words(item.lstrip("~").replace("_", " ")))
                if stems and (domain, stems) not in entries:
                    weight = (2.0 if len(stems) > 1 else 1.0) * (WEAK if weak else 1.0) * factor
                    entries[(domain, stems)] = _Entry(domain, stems, weight)
    out: dict[str, list[_Entry]] = {}
    for entry in entries.values():
        out.setdefault(entry.stems[0], []).append(entry)
    return out


def classify_detail(text: str) -> Classification:
    """Classify ``text`` and keep the matched surface words per domain."""
    surface = words(text)
    stems = [stem(w) for w in surface]
    weights = dict.fromkeys(DOMAINS, 0.0)
    matches: dict[str, list[str]] = {}
    for i, first in enumerate(stems):
        for entry in _by_first().get(first, ()):
            n = len(entry.stems)
            if tuple(stems[i:i + n]) == entry.stems:
                weights[entry.domain] += entry.weight
                hit = " ".join(surface[i:i + n])
                if hit not in matches.setdefault(entry.domain, []):
                    matches[entry.domain].append(hit)
    total = sum(weights.values())
    if not total:
        return Classification(GENERAL, dict.fromkeys(DOMAINS, 0.0), {})
    scores = {d: round(w / total, 3) for d, w in weights.items()}
    best = max(PRIORITY, key=lambda d: (weights[d], -PRIORITY.index(d)))
    return Classification(best, scores, matches)


def classify(text: str) -> tuple[str, dict[str, float]]:
    """``(classification, scores)``: the top domain tag (or ``"general"``) and each domain's share of the hits."""
    result = classify_detail(text)
    return result.classification, result.scores
