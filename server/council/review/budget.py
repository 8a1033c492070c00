"""Fitting large artifacts into the roles' prompts: a total character budget shared fairly, every cut recorded.

Water-filling: artifacts smaller than an equal share keep all their text and give the rest of their share to the
others; the large ones split what is left equally. A cut keeps the head of the artifact (a diff's first files, a
report's summary table) and is recorded as a :class:`Truncation`, which the decision's notes state.
"""

from __future__ import annotations

from council.review.models import Truncation

DEFAULT_BUDGET = 16_000  # characters of artifacts in one role prompt (about 4k tokens)
MIN_SHARE = 400  # no artifact is cut below this, even when many compete


def shares(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Characters each artifact may keep under ``total`` (water-filling; see the module docstring)."""
    left = max(total, 0)
    pending = dict(sizes)
    out: dict[str, int] = {}
    while pending:
        share = left // len(pending)
        small = {name: size for name, size in pending.items() if size <= share}
        if not small:
            for name in pending:
                out[name] = max(min(share, sizes[name]), min(MIN_SHARE, sizes[name]))
            break
        for name, size in small.items():
            out[name] = size
            left -= size
            del pending[name]
    return {name: out[name] for name in sizes}


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, ending at a line break when one is near."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    newline = head.rfind("\n")
    return head[:newline] if newline >= limit * 0.8 else head


def fit_artifacts(artifacts: dict[str, str], total: int = DEFAULT_BUDGET) -> tuple[dict[str, str], list[Truncation]]:
    """The artifacts as the roles will see them, and what was cut."""
    limits = shares({name: len(text) for name, text in artifacts.items()}, total)
    kept: dict[str, str] = {}
    cuts: list[Truncation] = []
    for name, text in artifacts.items():
        kept[name] = cut(text, limits[name])
        if len(kept[name]) < len(text):
            cuts.append(Truncation(artifact=name, original_chars=len(text), kept_chars=len(kept[name])))
    return kept, cuts
