"""Seating: which persona speaks with which model, and why — a pure function over the models on offer (the
policies: README, "Different models at the table"). The seating is data, journaled with the session; a seat whose
model fails falls back to the chat's model (:func:`fall_back`), once per model per session. A map's value may name
an agent CLI's model (``codex:gpt-5.1-codex``): the hub offers it beside the client's models. ``why`` codes are worded
by ``council.present``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from council.camel import CamelModel

SeatWhy = Literal["single", "chat", "diverse", "map", "map_unknown", "config"]
FallbackReason = Literal["model_unavailable", "no_consent", "model_failed"]
Policy = Literal["single", "chat", "diverse", "map"]
CHAIR_ROLES = ("clarifier", "moderator", "synthesizer")

# lineages one maker ships under several family names (VS Code's Copilot vendor serves all of them)
_ALIASES = {"o1": "gpt", "o3": "gpt", "o4": "gpt", "chatgpt": "gpt", "gpt": "gpt", "claude": "claude",
            "gemini": "gemini", "gemma": "gemini", "llama": "llama", "qwen": "qwen", "mistral": "mistral",
            "mixtral": "mistral", "codestral": "mistral", "grok": "grok", "deepseek": "deepseek", "phi": "phi"}
_TOKEN = re.compile(r"[a-z]+[0-9]?|[0-9]+")


class ModelChoice(CamelModel):
    """A model a seat can sit on: a client's chat model (``provider`` ``client``, ``id`` the client's model id) or
    a configured provider's model (``id`` the ``provider:model`` spec)."""

    id: str = Field(min_length=1, max_length=401,
                    description="A client model's id (at most 300 characters), or a `provider:model` spec: a "
                                "provider name (100) and a model name (300).")
    provider: str = Field(min_length=1, max_length=100, description="`client`, or a provider kind or name.")
    model: str = Field(max_length=300, description="The model's name as people read it.")
    vendor: str = Field("", max_length=100)
    family: str = Field("", max_length=100)

    @property
    def label(self) -> str:
        """How calls on this model are counted and shown: the client model's name, else ``provider:model``."""
        return model_label(self.provider, self.model)

    @property
    def lineage(self) -> str:
        """Which maker's line of models this is (``gpt``, ``claude``, ``gemini`` …): what diversity spreads over."""
        for text in (self.family, self.model, self.id):
            tokens = _TOKEN.findall(text.lower())
            if tokens:
                head = tokens[0]
                return _ALIASES.get(head, _ALIASES.get(head.rstrip("0123456789"), head))
        return self.vendor.lower() or self.id


def model_label(provider: str, model: str) -> str:
    return model if provider == "client" else f"{provider}:{model}"


class SeatFallback(CamelModel):
    """The seat's own model could not serve it; it speaks with the chat's model now."""

    from_model: ModelChoice
    reason: FallbackReason
    detail: str = Field("", max_length=300)


class Seat(CamelModel):
    persona: str
    model: ModelChoice = Field(description="The model the persona speaks with (after any fallback).")
    why: SeatWhy = Field(description="single: only one model; chat: the `chat` policy; diverse: spread over model "
                                     "families; map: the explicit persona → model map; map_unknown: the map names a "
                                     "model nobody offered, or an agent CLI that is not on PATH (the chat's model "
                                     "instead); config: the config file's persona_providers.")
    fallback: SeatFallback | None = None


class SeatMiss(CamelModel):
    """An entry of the persona → model map that did not apply (the map is a preference: it is said, not refused)."""

    persona: str = Field(max_length=80, description="The map's key as given.")
    model_id: str = Field(max_length=401, description="The model id the map gave it (an agent CLI's: its "
                                                      "`cli:model` spec).")
    reason: Literal["no_persona", "model_not_offered", "cli_not_installed"] = Field(
        description="no_persona: no persona has that name; model_not_offered: the persona is seated on the chat's "
                    "model because no model with that id is on offer; cli_not_installed: the entry names an agent "
                    "CLI's model (`codex:gpt-5.1-codex`) and that CLI is not on PATH (`detail` says how to install "
                    "it), so the persona is seated on the chat's model.")
    valid: list[str] = Field(default_factory=list, max_length=50,
                             description="What the entry could name: the personas, or the ids of the offered models.")
    detail: str = Field("", max_length=300, description="Why the model cannot be used, with its fix "
                                                        "(cli_not_installed).")


class Seating(CamelModel):
    """Who speaks with which model. The moderator, the clarifier and the chair use ``chair``."""

    policy: Policy
    chair: ModelChoice = Field(description="The chat's model: the moderator, the clarifier and the chair.")
    seats: list[Seat]
    offered: int = Field(1, ge=1, description="How many models were on offer.")
    misses: list[SeatMiss] = Field(default_factory=list, max_length=12,
                                   description="Map entries that did not apply, and why (a persona of the library "
                                               "who is not on this council is not one).")
    found: bool = Field(False, description="Nothing chose a model (no provider asked for or configured as the "
                                           "default, no client model): the models are the agent CLIs found on PATH "
                                           "that are signed in, the chair's the first.")

    @property
    def differs(self) -> bool:
        """Whether any persona speaks with another model than the chair (then headings name the models)."""
        return any(seat.model.id != self.chair.id for seat in self.seats)

    def model_of(self, role: str) -> ModelChoice:
        seat = next((s for s in self.seats if s.persona == role), None)
        return seat.model if seat is not None else self.chair


def lineages(models: list[ModelChoice]) -> list[str]:
    return list(dict.fromkeys(m.lineage for m in models))


def seat(personas: list[str], models: list[ModelChoice], chair: ModelChoice,
         policy: Literal["diverse", "chat"] | dict[str, str] | None = None,
         fixed: dict[str, ModelChoice] | None = None, unusable: dict[str, str] | None = None) -> Seating:
    """Seat ``personas`` (council order) on ``models`` (``chair`` among them: the chat's model) by the policies.

    ``policy`` None means ``diverse`` when the models span two or more lineages, else ``chat``. ``diverse`` deals
    one model per lineage (the chair's for its own lineage, else the first offered) round-robin from the chair's.
    ``fixed`` (the config file's per-persona providers) wins over all of it. ``unusable``: model ids the map may
    name that cannot be used here (an agent CLI not on PATH) → why, with the fix; their personas sit on the chair's
    model, and the miss says why."""
    offered = list({m.id: m for m in [chair, *models]}.values())
    fixed = {k.casefold(): v for k, v in (fixed or {}).items()}
    spread = lineages(offered)
    chosen: Policy = (
        "single" if len(offered) == 1 and not fixed else "map" if isinstance(policy, dict)
        else policy or ("diverse" if len(spread) >= 2 else "chat"))
    if chosen in ("single", "chat"):
        seats = [Seat(persona=p, model=chair, why=chosen) for p in personas]
    elif isinstance(policy, dict):
        by_id = {m.id: m for m in offered}
        wanted = {k.casefold(): v for k, v in policy.items()}
        seats = []
        for p in personas:
            want = wanted.get(p.casefold())
            why = "chat" if want is None else "map" if want in by_id else "map_unknown"
            seats.append(Seat(persona=p, model=by_id[want] if why == "map" else chair, why=why))
    else:
        order = [chair.lineage, *[x for x in spread if x != chair.lineage]]
        pick = {chair.lineage: chair}
        for m in offered:
            pick.setdefault(m.lineage, m)
        seats = [Seat(persona=p, model=pick[order[i % len(order)]], why="diverse") for i, p in enumerate(personas)]
    result = Seating(policy=chosen, chair=chair, seats=seats, offered=len(offered),
                     misses=_misses(personas, offered, policy, unusable or {}))
    for s in result.seats:
        own = fixed.get(s.persona.casefold())
        if own is not None:
            s.model, s.why = own, "config"
    return result


def _misses(personas: list[str], offered: list[ModelChoice],
            policy: Literal["diverse", "chat"] | dict[str, str] | None, unusable: dict[str, str]) -> list[SeatMiss]:
    """The map's entries for this council's personas whose model is not on offer, or cannot be used here."""
    if not isinstance(policy, dict):
        return []
    ids = {m.id for m in offered}
    seated = {p.casefold(): p for p in personas}
    return [SeatMiss(persona=seated[key.casefold()], model_id=want, reason="cli_not_installed", detail=unusable[want])
            if want in unusable else
            SeatMiss(persona=seated[key.casefold()], model_id=want, reason="model_not_offered",
                     valid=[m.id for m in offered][:50])
            for key, want in policy.items() if key.casefold() in seated and want not in ids][:12]


def fall_back(seating: Seating, model_id: str, reason: FallbackReason, detail: str = "") -> list[str]:
    """Move every seat on ``model_id`` to the chair's model (in place); the personas moved (none: nothing to do,
    e.g. the chair's own model failed, or it fell back already)."""
    if model_id == seating.chair.id:
        return []
    moved = []
    for s in seating.seats:
        if s.model.id == model_id:
            s.fallback = SeatFallback(from_model=s.model, reason=reason, detail=detail[:300])
            s.model = seating.chair
            moved.append(s.persona)
    return moved
