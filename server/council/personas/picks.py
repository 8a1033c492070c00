"""How the ranked personas become a council: the experts of the domains a request clearly touches first, then the
best of the rest until the score drops off, kept to one council unless an outsider is clearly relevant (the rules
:func:`council.personas.routing.select_personas` states)."""

from __future__ import annotations

from collections.abc import Callable

from council.personas.contract import PersonaContract

CLEARLY_RELEVANT = 0.85  # an outsider needs this fraction of the top combined score to take a seat
KEEP_FRACTION = 0.55  # optional seats: score at least this fraction of the top score…
DROP_OFF = 0.7  # …and no sharp fall from the previous pick
EXPERT_SHARE = 0.15  # a domain with this share of the request's keywords seats its expert
EXPERT_RANK = 2  # a domain's expert has it among its first two domains
OUTSIDE_EXPERT_SHARE = 0.3  # …and an expert from outside the main domain's council needs this share


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
          outsiders: bool, seated: list[PersonaContract] = ()) -> list[PersonaContract]:  # type: ignore[assignment]
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
        if len(picks) < slots_min:
            picks.append(p)
            previous = adjusted(p)
            continue
        if top > 0 and adjusted(p) >= KEEP_FRACTION * top and adjusted(p) >= DROP_OFF * previous:
            picks.append(p)
            previous = adjusted(p)
        else:
            break  # the score dropped off; the rest rank lower still
    for p in deferred:
        if len(picks) >= slots_min:
            break
        picks.append(p)
    return sorted(picks, key=lambda p: -combined[p.id])
