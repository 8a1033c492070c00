"""The models of a session's seats: what it may ask of the seating, checked against the personas and the models
on offer (the role → provider function of a session that exists is ``council.sessions.Sessions.pick``).

Three rules, one per surface (README, *Different models at the table*): the config file's ``[persona_providers]``
is an explicit instruction, so an entry naming no persona or no configured provider is refused; a persona → model
map (``SessionOptions.seating``, VS Code's ``council.models``) is a preference that holds across workspaces, so an
entry naming no persona is said in ``seating.decided`` (``misses``), not refused; and the seats of a session whose
client no longer offers their model (a restore after a restart, a model gone or refused) fall back to the chat's
model at the next turn, as a failed model would.
"""

from __future__ import annotations

from council.config import CouncilConfig
from council.errors import validation_error
from council.personas.loader import PersonaLibrary
from council.protocol.methods import ClientCapabilities, SessionOptions, TurnParams
from council.provider_hub import ProviderHub
from council.providers.base import Provider
from council.session.state import records as r
from council.session.state.runtime import SessionRuntime
from council.session.state.seating import Seating, SeatMiss


def check_persona_providers(config: CouncilConfig, library: PersonaLibrary) -> None:
    """Refuse (a validation error naming it) a ``[persona_providers]`` entry naming no persona or a provider that
    is not configured; it used to be dropped with a log line."""
    names = {n.casefold() for n in library.names}
    for persona, provider in config.persona_providers.items():
        field = f"persona_providers.{persona}"
        if persona.casefold() not in names:  # matched by name, as the seating does
            near = library.get(persona)
            hint = f"did you mean “{near.name}”?" if near else f"the personas: {', '.join(library.names)}"
            raise validation_error(f"the config's [persona_providers] names “{persona}”, which is no persona "
                                   f"({hint})", fields={field: "no persona"}, valid=library.names)
        if provider not in config.providers:
            known = sorted(config.providers)
            raise validation_error(f"the config's [persona_providers] seats “{persona}” on “{provider}”, which is no "
                                   f"configured provider (configured: {', '.join(known) or 'none'})",
                                   fields={field: "no such provider"}, valid=known)


def resolve_seating_map(options: SessionOptions, library: PersonaLibrary) -> tuple[SessionOptions, list[SeatMiss]]:
    """The options with a persona → model map's keys resolved to persona names (as ``--personas`` resolves them),
    and the keys that name no persona (said, not refused)."""
    policy = options.seating
    if not isinstance(policy, dict):
        return options, []
    resolved: dict[str, str] = {}
    unknown: list[SeatMiss] = []
    for key, model in policy.items():
        persona = library.get(key)
        if persona is None:
            unknown.append(SeatMiss(persona=key, model_id=model, reason="no_persona", valid=library.names[:50]))
        else:
            resolved[persona.name] = model
    return options.model_copy(update={"seating": resolved}), unknown


async def seat_session(hub: ProviderHub, config: CouncilConfig, library: PersonaLibrary, params: TurnParams,
                       personas: list[str]) -> tuple[Seating, Provider]:
    """A new session's seating and the chat's model's provider, after the checks above (the map's misses kept)."""
    check_persona_providers(config, library)
    options, unknown = resolve_seating_map(params.options, library)
    seating, default = await hub.seat(options, params.client, personas)
    seating.misses = [*unknown, *seating.misses][:12]
    return seating, default


def drop_unoffered(rt: SessionRuntime, client: ClientCapabilities | None) -> None:
    """Seats on a client model the client no longer offers fall back to the chat's model before the turn's first
    call (``seat.fellBack``, one note per model). No client, or one that lists no models this turn: nothing."""
    seating = rt.session.seating if rt.created else None
    if seating is None or client is None or not client.models:
        return
    offered = {m.id for m in client.models}
    gone = dict.fromkeys(x.model.id for x in seating.seats if x.model.provider == "client"
                         and x.model.id != seating.chair.id and x.model.id not in offered)
    for model_id in gone:
        rt.record(r.SeatFellBack(at=rt.clock(), model_id=model_id, reason="model_unavailable",
                                 detail="the client no longer offers this model"))
