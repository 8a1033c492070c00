"""Persona routing: which personas sit on the council for a request, and a human-readable reason why (the rules:
README, "Personas"). Past the experts (:func:`experts`) the rest are picked until the score drops off (:func:`pick`),
within [min_personas, max_personas] and one council unless an outsider is clearly relevant; always-include personas
are added; review-only personas are seated only by an override.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from council.personas.contract import REVIEW_COUNCIL, PersonaContract
from council.personas.embeddings import EmbeddingRanker, EmbeddingsNotReady, embeddings_available
from council.personas.lexicon import GENERAL, Classification, classify, classify_detail
from council.personas.loader import PersonaLibrary, UnknownPersonaError
from council.personas.tfidf import OverlapRanker, Ranker, TfidfRanker, rank

log = logging.getLogger(__name__)

__all__ = [
    "EmbeddingRanker", "OverlapRanker", "Ranker", "Selection", "TfidfRanker", "UnknownPersonaError",
    "classify", "default_ranker", "select_personas", "start_embedding_warmup",
]

Method = Literal["override", "embeddings", "tfidf", "keywords"]

SIMILARITY_WEIGHT = 0.55  # the rest is the domain match
DOMAIN_RANK_WEIGHTS = (1.0, 0.65, 0.45, 0.35)  # a persona's first domain counts fully, later ones less
OFF_COUNCIL_FACTOR = 0.8  # a persona from the other council must be clearly better to displace a member
CLEARLY_RELEVANT = 0.85  # an outsider needs this fraction of the top combined score to take a seat
KEEP_FRACTION = 0.55  # optional seats: score at least this fraction of the top score…
DROP_OFF = 0.7  # …and no sharp fall from the previous pick
EXPERT_SHARE = 0.15  # a domain with this share of the request's keywords seats its expert
EXPERT_RANK = 2  # a domain's expert has it among its first two domains
OUTSIDE_EXPERT_SHARE = 0.3  # …and an expert from outside the main domain's council needs this share

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)


class Selection(BaseModel):
    """The routing decision: who sits on the council, how they were chosen and why."""

    model_config = ConfigDict(frozen=True)

    classification: str
    personas: list[PersonaContract]
    reason: str
    user_override: bool = False
    overridden: list[str] = []
    method: Method
    scores: dict[str, float] = {}  # persona name → combined score (empty for overrides)
    chosen_for: dict[str, list[str]] = {}  # routed persona name → the request's words that seated it
    basis: str = ""  # how the council was chosen: the reason without who always sits (or that one answers alone)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.personas]


# --- rankers ------------------------------------------------------------------------------------------------

_warm_lock = threading.Lock()
_embedding_ranker: EmbeddingRanker | None = None
_warm_thread: threading.Thread | None = None


def start_embedding_warmup(library: PersonaLibrary | None = None) -> EmbeddingRanker | None:
    """Start loading the embedding model in a daemon thread; None when the packages are not installed.

    With ``library``, its personas are embedded during the warm-up too. Idempotent: later calls return the
    same ranker. Detection uses ``importlib.util.find_spec`` only, so this returns at once and never imports
    torch on the calling thread. :func:`default_ranker` switches to the ranker once it is warm.
    """
    global _embedding_ranker, _warm_thread
    with _warm_lock:
        if _embedding_ranker is not None:
            return _embedding_ranker
        if not embeddings_available():
            log.info("sentence-transformers or the MiniLM model package is missing; routing uses TF-IDF")
            return None
        ranker = EmbeddingRanker()

        def _run() -> None:
            try:
                ranker.warm_up(persona_texts(library) if library is not None else None)
            except EmbeddingsNotReady as exc:
                log.warning("embedding ranker unavailable, routing uses TF-IDF: %s", exc)

        _warm_thread = threading.Thread(target=_run, name="council-embeddings-warmup", daemon=True)
        _warm_thread.start()
        _embedding_ranker = ranker
        return ranker


def exit_code(code: int) -> int:
    """``code``, for the process to exit with normally — unless the embedding warm-up is still loading: then the
    process ends here, with ``code``. A normal exit would run torch's C++ destructors under the loading thread and
    abort (SIGABRT, "terminate called without an active exception"): a clean ``shutdown``/``exit`` a few seconds
    after start, e.g. VS Code restarting the sidecar for a settings change, looked like a crash."""
    thread = _warm_thread
    if thread is None or not thread.is_alive():
        return code
    log.info("ending while the embedding model still loads")
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


_TFIDF = TfidfRanker()  # one instance, so its per-document-set index cache is reused


def default_ranker() -> Ranker:
    """The warm embedding ranker if one is ready, else TF-IDF."""
    ranker = _embedding_ranker
    return ranker if ranker is not None and ranker.ready else _TFIDF


def _strength(ranker: Ranker, scores: list[float]) -> float:
    """How much the similarity counts (0–1). A lexical ranker says how high a score must be to be a clear match
    (``full_match``); a best score below it counts in proportion, so one common word shared with a contract
    ("page" and "pager", "delay") cannot outweigh the request's domain keywords. Rankers without ``full_match``
    (embeddings: their scores are only compared with each other) count fully."""
    full = getattr(ranker, "full_match", None)
    return min(1.0, max(scores, default=0.0) / full) if full else 1.0


def persona_texts(library: PersonaLibrary) -> list[str]:
    """The texts requests are compared with: one per routable (chat, not always-included) persona, in order."""
    return [p.routing_text() for p in library.all if p.chats and not p.always_include]


def _relative(scores: list[float]) -> list[float]:
    """Min-max scaled scores; all zero when the ranker does not tell the documents apart."""
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    if high <= 0 or high - low < 1e-3:
        return [0.0] * len(scores)
    return [(s - low) / (high - low) for s in scores]


# --- selection ----------------------------------------------------------------------------------------------

def experts(pool: list[PersonaContract], domain_scores: dict[str, float], combined: dict[str, float],
             preferred: str | None) -> list[PersonaContract]:
    """The expert of every domain with :data:`EXPERT_SHARE` of the keywords, largest share first: the persona
    with the domain earliest among its domains (within :data:`EXPERT_RANK`), a member of the preferred council
    before an outsider, then the better score. After the main domain's expert, an expert from another council
    needs :data:`OUTSIDE_EXPERT_SHARE` (an "employee" whose laptop was stolen does not seat the Culture Lead)."""
    found: list[PersonaContract] = []
    for domain, share in sorted(domain_scores.items(), key=lambda kv: -kv[1]):
        if share < EXPERT_SHARE:
            break
        candidates = [p for p in pool if domain in p.domains[:EXPERT_RANK]]
        if found:
            home = set(found[0].councils)
            candidates = [p for p in candidates if home & set(p.councils) or share >= OUTSIDE_EXPERT_SHARE]
        if not candidates:
            continue
        best = min(candidates, key=lambda p: (p.domains.index(domain), preferred not in p.councils, -combined[p.id]))
        if best not in found:
            found.append(best)
    return found


def pick(ranked: list[PersonaContract], adjusted: Callable[[PersonaContract], float],
          combined: dict[str, float], preferred: str | None, *, slots_min: int, slots_max: int,
          outsiders: bool, seated: list[PersonaContract]) -> list[PersonaContract]:
    """The ``seated`` experts, then required seats (members before weak outsiders), then optional seats until the
    score drops off."""
    top = adjusted(ranked[0]) if ranked else 0.0
    best = max(combined.values(), default=0.0)

    def welcome(p: PersonaContract) -> bool:
        clearly_relevant = best > 0 and combined[p.id] >= CLEARLY_RELEVANT * best
        return preferred in p.councils or (outsiders and clearly_relevant)

    picks: list[PersonaContract] = list(seated)
    deferred: list[PersonaContract] = []
    previous = top
    for p in ranked:
        if len(picks) >= slots_max:
            break
        if p in picks:
            previous = adjusted(p)
            continue
        if not welcome(p):
            deferred.append(p)
            continue
        kept = top > 0 and adjusted(p) >= KEEP_FRACTION * top and adjusted(p) >= DROP_OFF * previous
        if len(picks) < slots_min or kept:
            picks.append(p)
            previous = adjusted(p)
        else:
            break  # the score dropped off; the rest rank lower still
    picks += deferred[:max(0, slots_min - len(picks))]  # required seats no member filled
    return sorted(picks, key=lambda p: -combined[p.id])


def _override(library: PersonaLibrary, requested: list[str], classification: str) -> Selection:
    found: list[PersonaContract] = []
    unknown: list[str] = []
    for name in requested:
        persona = library.get(name)
        if persona is None:
            unknown.append(name)
        elif persona not in found:
            found.append(persona)
    if unknown:  # else ``found`` holds someone: select_personas calls this for a non-empty override only
        raise UnknownPersonaError(unknown, library.names)
    names = _join([p.name for p in found])
    basis = f"You requested {names}; the council is exactly them (routing skipped)." if len(found) > 1 else \
        f"You requested {names} (routing skipped)."
    return Selection(classification=classification, personas=found, reason=told(basis, found, "override"),
                     basis=basis, user_override=True, overridden=[p.name for p in found], method="override")


def told(basis: str, personas: list[PersonaContract], method: str) -> str:
    """The reason for a council: how it was chosen (``basis``), then who always sits on a routed council of two or
    more — or, for a council of one, that it answers alone (it has nobody to debate)."""
    if len(personas) == 1:
        return f"{basis} A council of one: {personas[0].name} answers alone, without a debate."
    if method == "override":  # exactly the personas asked for: nobody sits because they always do
        return basis
    return basis + "".join(f" {p.name} always sits on the council." for p in personas if p.always_include)


def narrowed(sel: Selection, kept: list[PersonaContract], why: str) -> Selection:
    """``sel`` cut down to ``kept`` (``why``: "To fit the budget of 3 model calls"), its reason saying who was
    left out and what the council that is left does."""
    left = [p.name for p in sel.personas if p not in kept]
    if not left:
        return sel
    basis = f"{sel.basis} {why}, {_join(left)} {'was' if len(left) == 1 else 'were'} left out."
    return sel.model_copy(update={"personas": kept, "basis": basis, "reason": told(basis, kept, sel.method)})


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _query_for(text: str, matches: dict[str, list[str]]) -> str:
    """The ranking query: the request, plus its matched domain tags when it is mostly non-Latin text.

    The persona contracts are English; the tags bridge a Russian request to them.
    """
    if len(_CYRILLIC.findall(text)) > len(_LATIN.findall(text)) and matches:
        return text + " " + " ".join(sorted(matches, key=lambda d: -len(matches[d])))
    return text


def _domain_fit(persona: PersonaContract, domain_scores: dict[str, float]) -> float:
    top = max(domain_scores.values(), default=0.0)
    if top <= 0:
        return 0.0
    # The first domain is the persona's home turf; later ones count less and less.
    return max(domain_scores.get(d, 0.0) / top * DOMAIN_RANK_WEIGHTS[min(i, len(DOMAIN_RANK_WEIGHTS) - 1)]
               for i, d in enumerate(persona.domains))


def _preferred_council(library: PersonaLibrary, combined: dict[str, float]) -> str | None:
    best, best_fit = None, -1.0
    for council in library.councils:
        if council == REVIEW_COUNCIL:  # not a chat council
            continue
        members = sorted((combined[p.id] for p in library.council(council) if not p.always_include), reverse=True)
        fit = sum(members[:3]) / len(members[:3]) if members else 0.0
        if fit > best_fit + 1e-9:
            best, best_fit = council, fit
    return best


def select_personas(library: PersonaLibrary, request_text: str, *, override: list[str] | None = None,
                    max_personas: int = 5, min_personas: int = 3, ranker: Ranker | None = None) -> Selection:
    """Choose the council for ``request_text``; see the module docstring for the rules.

    Raises :class:`UnknownPersonaError` (listing the valid names) when an override names an unknown persona.
    """
    detail = classify_detail(request_text)
    if override:
        return _override(library, override, detail.classification)
    max_personas = max(1, max_personas)
    min_personas = max(1, min(min_personas, max_personas))
    personas = [p for p in library.all if p.chats]
    always = [p for p in personas if p.always_include][:max_personas]
    pool = [p for p in personas if not p.always_include]

    texts = persona_texts(library)
    used, raw = rank((ranker or default_ranker(), _TFIDF, OverlapRanker()), _query_for(request_text, detail.matches),
                     texts) or (OverlapRanker(), [0.0] * len(texts))
    method: Method = used.name  # type: ignore[assignment]
    rel = _relative(raw)
    has_domains = detail.classification != GENERAL
    # A request with no domain keywords ("what should we do next year?") is treated as a strategy question.
    fit_scores = detail.scores if has_domains else {"strategy": 1.0}
    weight = SIMILARITY_WEIGHT * _strength(used, raw)
    combined = {
        p.id: (weight * r + (1 - SIMILARITY_WEIGHT) * _domain_fit(p, fit_scores)) / (weight + 1 - SIMILARITY_WEIGHT)
        for p, r in zip(pool, rel, strict=True)
    }
    if not any(rel) and has_domains:
        method = "keywords"  # only the lexicon told the personas apart
    preferred = _preferred_council(library, combined)
    slots_max = max(0, max_personas - len(always))
    seated = experts(pool, detail.scores, combined, preferred)[:slots_max]
    if seated:  # the council of the main domain's expert: an ETL question is the engineers' even if
        preferred = next((c for c in seated[0].councils if c != REVIEW_COUNCIL), preferred)  # "warehouse"

    def adjusted(p: PersonaContract) -> float:
        return combined[p.id] * (1.0 if preferred in p.councils else OFF_COUNCIL_FACTOR)

    ranked = sorted(pool, key=lambda p: (-adjusted(p), personas.index(p)))
    picks = pick(ranked, adjusted, combined, preferred, slots_min=max(0, min_personas - len(always)),
                  slots_max=slots_max, outsiders=has_domains, seated=seated)
    chosen = picks + always
    scores = {p.name: round(combined[p.id], 2) for p in ranked}
    chosen_for = {p.name: _chosen_for(p, detail.matches) for p in picks}
    basis = _reason(detail, picks, scores, preferred, method, chosen_for)
    routed = Selection(classification=detail.classification, personas=chosen, reason=told(basis, chosen, method),
                       basis=basis, method=method, scores=scores, chosen_for=chosen_for)
    named = [p for p in library.names_in_text(request_text) if p.chats]  # naming a review role seats nobody
    return _with_named(routed, named, max_personas) if named else routed


def _with_named(routed: Selection, named: list[PersonaContract], max_personas: int) -> Selection:
    """The routed council with the personas the request names added: naming an advisor never shrinks the council
    to that advisor. Within ``max_personas`` the named ones are kept first, then the always-included, then the
    routed picks by score; the order stays the council's (routed picks, the named, the always-included)."""
    named = named[:max_personas]
    rest = [p for p in routed.personas if p not in named]
    always = [p for p in rest if p.always_include]
    kept = named + always[:max_personas - len(named)]
    kept += [p for p in rest if not p.always_include][:max(0, max_personas - len(kept))]
    everyone = routed.personas + [p for p in named if p not in routed.personas]
    chosen = [p for p in everyone if p in kept and not p.always_include] + \
             [p for p in everyone if p in kept and p.always_include]
    names = [p.name for p in named]
    basis = routed.basis + f" You named {_join(names)} in the request, so they sit on the council too."
    dropped = [p.name for p in routed.personas if p not in kept]
    if dropped:
        basis += f" The council is capped at {max_personas}, so {_join(dropped)} made way."
    return routed.model_copy(update={"personas": chosen, "basis": basis, "reason": told(basis, chosen, routed.method),
                                     "user_override": True, "overridden": names})


CHOSEN_FOR_WORDS = 4


def _chosen_for(persona: PersonaContract, matches: dict[str, list[str]]) -> list[str]:
    """The request's words that seated ``persona``: its domains' keywords, its home domain's first (none for a
    request with no domain keywords: then the persona's fit with a strategy question seated it)."""
    found: list[str] = []
    for domain in persona.domains:
        found += [w for w in matches.get(domain, []) if w not in found]
    return found[:CHOSEN_FOR_WORDS]


def _reason(detail: Classification, picks: list[PersonaContract], scores: dict[str, float], council: str | None,
            method: str, chosen_for: dict[str, list[str]]) -> str:
    domain = detail.classification
    parts = ["The request matched no domain keywords" if domain == GENERAL
             else f"Request classified as {domain} ({', '.join(detail.matches.get(domain, [])[:6])})"]
    if picks:
        chosen = ", ".join(f"{p.name} ({scores[p.name]:.2f}"
                           + (f": {', '.join(chosen_for[p.name])})" if chosen_for.get(p.name) else ")") for p in picks)
        same = council is not None and all(council in p.councils for p in picks)
        where = f" from the {council} council" if same else ""
        parts.append(f"chose {chosen}{where}")
    return "; ".join(parts) + f" (ranked by {method})."
