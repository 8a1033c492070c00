"""The persona contract (seed 000's ``PersonaContract``) as a validated pydantic model: one TOML file in ``personas/``
is one contract (see README, "Personas"). Validation enforces the seed's rules: a non-empty soul, at least one focus
item, and constraints that state both a refusal pattern and a challenge mechanism. A persona of the ``review`` council
(seed 004) also has a ``[review]`` table (:class:`ReviewRole`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from council.camel import CamelModel
from council.review.models import ArtifactName, Axis, ChangeType  # upward: a review role speaks seed 004's words

Domain = Literal[
    "architecture", "security", "workflow", "finance", "people", "product", "operations",
    "growth", "customer", "reliability", "strategy", "data", "legal",
]
DOMAINS: tuple[str, ...] = Domain.__args__  # type: ignore[attr-defined]

REFUSAL_MARKERS = ("refuse", "never", "declines", "won't", "will not")
CHALLENGE_MARKERS = ("challenge", "question", "push back", "pushes back", "demand")

REVIEW_COUNCIL = "review"
_SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
_APOSTROPHES = re.compile(r"[\u2018\u2019\u02bc`´]")


def _has_marker(items: list[str], markers: tuple[str, ...]) -> bool:
    return any(m in _APOSTROPHES.sub("'", item.lower()) for item in items for m in markers)


def _squeezed(text: str, blank: str) -> str:
    """``text`` with its whitespace runs made single spaces; ``ValueError(blank)`` when nothing is left."""
    text = " ".join(text.split())
    if not text:
        raise ValueError(blank)
    return text


# A wire model kept here, beside the contract it shows, so that personas import nothing of the wire;
# council.protocol.methods re-exports it.
class PersonaInfo(CamelModel):
    id: str
    name: str
    council: str
    soul: str
    focus: list[str]
    constraints: list[str]
    allowed_tools: list[str]
    source: str


class ChecklistItem(BaseModel):
    """One question a review role must answer; a failed ``blocking`` item is a blocking issue (→ REJECT)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    question: str = Field(min_length=5, max_length=300)
    blocking: bool = False


class ReviewRole(BaseModel):
    """How a persona sits on the review council."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    sits_for: dict[ChangeType, str] = Field(min_length=1, description="Change type → why the role sits for it.")
    needs: dict[ChangeType, list[ArtifactName]] = Field(
        default_factory=dict, description="Change type → artifacts the role cannot judge without.")
    axes: list[Axis] = Field(min_length=1, max_length=6, description="Axes the role scores with the most weight.")
    checklist: list[ChecklistItem] = Field(min_length=2, max_length=10)

    @field_validator("sits_for")
    @classmethod
    def _reasons(cls, reasons: dict[ChangeType, str]) -> dict[ChangeType, str]:
        blank = "every change type needs the reason the role sits for it"
        return {kind: _squeezed(reason, blank) for kind, reason in reasons.items()}

    @field_validator("axes")
    @classmethod
    def _distinct_axes(cls, axes: list[str]) -> list[str]:
        if len(set(axes)) != len(axes):
            raise ValueError("axes must not repeat")
        return axes

    @model_validator(mode="after")
    def _needs_where_it_sits(self) -> ReviewRole:
        stray = [kind.value for kind in self.needs if kind not in self.sits_for]
        if stray:
            raise ValueError(f"needs lists change types the role does not sit for: {', '.join(stray)}")
        return self


class PersonaContract(BaseModel):
    """A council persona: who it is (soul), what it weighs (focus) and the rules it keeps (constraints)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    id: str = Field(pattern=_SLUG, max_length=60, description="Stable slug, e.g. 'devils-advocate'.")
    name: str = Field(min_length=1, max_length=80)
    councils: list[str] = Field(min_length=1, max_length=8)
    soul: str = Field(min_length=1, max_length=4000, description="Background and expertise (system prompt).")
    focus: list[str] = Field(min_length=1, max_length=12)
    constraints: list[str] = Field(min_length=1, max_length=12)
    allowed_tools: list[str] = ["council.consult", "persona.consult"]
    domains: list[Domain] = Field(min_length=1, max_length=len(DOMAINS))
    description: str = Field(min_length=1, max_length=600, description="One line for routing.")
    always_include: bool = False
    tone: str = Field("", max_length=120)
    aliases: list[str] = Field(default_factory=list, max_length=12, description="Other names users call it.")
    names: dict[str, str] = Field(default_factory=dict, max_length=12, description=(
        "Its name in other languages (language code → name): what people read in a session in that language; "
        "ids and the wire keep ``name``."))
    review: ReviewRole | None = Field(None, description="Its seat on the review council (seed 004).")

    @field_validator("councils", "focus", "constraints", "allowed_tools", "aliases", "soul", "description")
    @classmethod
    def _not_blank(cls, value: str | list[str]) -> str | list[str]:
        if isinstance(value, str):
            return _squeezed(value, "must not be blank")
        return [_squeezed(item, "items must not be blank") for item in value]

    @field_validator("names")
    @classmethod
    def _localized_names(cls, names: dict[str, str]) -> dict[str, str]:
        out = {}
        for lang, name in names.items():
            if not re.match(r"^[a-z]{2}$", lang):
                raise ValueError(f"language {lang!r} must be a two-letter code like 'ru'")
            out[lang] = _squeezed(name, "names must not be blank")
            if len(out[lang]) > 80:
                raise ValueError(f"the {lang} name is longer than 80 characters")
        return out

    @field_validator("constraints")
    @classmethod
    def _refusal_and_challenge(cls, items: list[str]) -> list[str]:
        if not _has_marker(items, REFUSAL_MARKERS):
            raise ValueError("constraints must state a refusal pattern (e.g. 'Refuses to …', 'Never …')")
        if not _has_marker(items, CHALLENGE_MARKERS):
            raise ValueError("constraints must state a challenge mechanism (e.g. 'Challenges … by asking …')")
        return items

    @field_validator("councils")
    @classmethod
    def _council_slugs(cls, items: list[str]) -> list[str]:
        for item in items:
            if not re.match(_SLUG, item):
                raise ValueError(f"council {item!r} must be a lowercase slug like 'engineering'")
        if len(set(items)) != len(items):
            raise ValueError("councils must not repeat")
        return items

    @model_validator(mode="after")
    def _review_seat(self) -> PersonaContract:
        if REVIEW_COUNCIL in self.councils and self.review is None:  # a [review] table alone seats nobody
            raise ValueError(f"a persona on the {REVIEW_COUNCIL!r} council needs a [review] table")
        return self

    @property
    def chats(self) -> bool:
        """Whether the persona sits on a chat council (every council but ``review``)."""
        return any(c != REVIEW_COUNCIL for c in self.councils)

    def to_info(self, source: str) -> PersonaInfo:
        """The wire view (``council/personas``); ``source`` says which file or layer it came from."""
        shown = self.model_dump(include={"id", "name", "soul", "focus", "constraints", "allowed_tools"})
        return PersonaInfo(council=", ".join(self.councils), source=source, **shown)

    def routing_text(self) -> str:
        """What routing compares a request with: description, focus, domains and soul."""
        return " ".join([self.description, *self.focus, " ".join(self.domains), self.soul])

    def system_prompt(self) -> str:
        tone = [f"Tone: {self.tone}."] if self.tone else []
        return "\n".join([f"You are the {self.name} on a council of advisers.", self.soul, *tone, "You focus on:",
                          *(f"- {item}" for item in self.focus), "Rules you keep:",
                          *(f"- {item}" for item in self.constraints)])
