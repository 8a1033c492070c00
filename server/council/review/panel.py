"""Who sits on the review panel for a change type, why, and which artifacts each seated role is missing.

A persona sits when it belongs to the ``review`` council and its contract's ``[review.sits_for]`` names the change
type; the reason recorded is the contract's own sentence for that change type. Seats keep the library's order,
except that an always-included persona (the Devil's Advocate) sits last, as on a chat council.
"""

from __future__ import annotations

from dataclasses import dataclass

from council.errors import internal_error
from council.personas.contract import REVIEW_COUNCIL, PersonaContract, ReviewRole
from council.personas.loader import PersonaLibrary
from council.review.models import Artifacts, ChangeType, Seat


@dataclass(frozen=True)
class SeatedRole:
    """A persona on the panel with its review contract."""

    contract: PersonaContract
    role: ReviewRole
    reason: str
    needs: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.contract.name

    def seat(self) -> Seat:
        return Seat(role=self.name, reason=self.reason, needs=list(self.needs))


def seat_panel(library: PersonaLibrary, change_type: ChangeType) -> list[SeatedRole]:
    """The roles that sit for ``change_type``; an empty panel is a configuration fault (internal error)."""
    panel = []
    for persona in library.council(REVIEW_COUNCIL):
        review = persona.review
        if review is None or change_type not in review.sits_for:
            continue
        panel.append(SeatedRole(contract=persona, role=review, reason=review.sits_for[change_type],
                                needs=tuple(review.needs.get(change_type, ()))))
    panel.sort(key=lambda seated: seated.contract.always_include)  # stable: library order otherwise
    if not panel:
        raise internal_error(f"no review role sits for {change_type.value}: check the [review] tables in the "
                             "persona contracts", change_type=change_type.value)
    return panel


def missing_artifacts(panel: list[SeatedRole], artifacts: Artifacts) -> dict[str, list[str]]:
    """Role → the artifacts it needs that the request does not carry (roles missing nothing are left out)."""
    provided = artifacts.provided()
    missing = {seated.name: [name for name in seated.needs if name not in provided] for seated in panel}
    return {role: names for role, names in missing.items() if names}
