"""The agent CLIs found on PATH, and which of them are signed in: the seats of a council nothing else chose a model
for (README, "Models": after the client's own model, before a local Ollama; ``agent_clis = false`` or
``COUNCIL_AGENT_CLIS=0`` turns it off).

Seating reads only what costs nothing: each CLI's own sign-in check (:meth:`AgentCliProvider.unready`: ``claude
auth status``, ``codex login status``, Gemini CLI's settings and variables, Copilot CLI's tokens, signed-in users
and own provider), no model call — the council's first billed call is one its 💰 line counted. A CLI that passes
and then fails its first real call (signed out after all, out of quota) gives its seats to the chair's model, as any
failing seat does. ``council doctor`` asks for more (``called=True``): each CLI answers a tiny prompt, one model
call per CLI, which the doctor says before it asks. The answers are kept for the life of the process (per
executable found and kind of check), so a sidecar checks each CLI once, however many sessions it seats.
"""

from __future__ import annotations

import logging
import shutil

import anyio
import anyio.lowlevel

from council.config import AGENT_CLI_KINDS, CouncilConfig, ProviderConfig
from council.providers.agent_cli import DEFAULT_MODEL, AgentCliProvider
from council.providers.base import ProviderStatus

__all__ = ["CHECK_DEADLINE", "DEFAULT_MODEL", "answering", "forget", "on_path", "statuses"]

log = logging.getLogger(__name__)

#: Seconds each CLI has to answer the doctor's check (a Node CLI takes seconds to start on a busy machine).
CHECK_DEADLINE = 30.0

_checked: dict[tuple[str, str, bool], ProviderStatus] = {}  # (kind, executable, called) → its answer
_lock: tuple[object, anyio.Lock] | None = None  # one per event loop: a check runs once however many ask at once


def on_path() -> dict[str, str]:
    """kind → executable, for each agent CLI on PATH (in :data:`AGENT_CLI_KINDS` order)."""
    return {kind: found for kind in AGENT_CLI_KINDS if (found := shutil.which(kind))}


def _loop_lock() -> anyio.Lock:
    global _lock
    token = anyio.lowlevel.current_token()
    if _lock is None or _lock[0] is not token:
        _lock = (token, anyio.Lock())
    return _lock[1]


async def _check(kind: str, executable: str, called: bool) -> ProviderStatus:
    from council.providers.registry import build_provider

    provider = build_provider(ProviderConfig(kind=kind, options={"deadline": CHECK_DEADLINE}))  # type: ignore[arg-type]
    try:
        if called:
            return await provider.check()
        assert isinstance(provider, AgentCliProvider)
        return await provider.signed_in(executable)
    except Exception as err:  # a check reports, never breaks the caller
        log.debug("checking %s failed", kind, exc_info=True)
        return ProviderStatus(available=False, detail=f"{type(err).__name__}: {err}")
    finally:
        await provider.aclose()


async def statuses(*, called: bool = False) -> dict[str, ProviderStatus]:
    """kind → whether it is signed in (``called``: whether it answers a tiny prompt — one model call each), for each
    agent CLI on PATH (checked at most once per process, executable and kind of check)."""
    found = on_path()
    async with _loop_lock():
        missing = [kind for kind, path in found.items() if (kind, path, called) not in _checked]

        async def check(kind: str) -> None:
            _checked[(kind, found[kind], called)] = await _check(kind, found[kind], called)

        if missing:
            async with anyio.create_task_group() as tg:
                for kind in missing:
                    tg.start_soon(check, kind)
            word = ("answers", "does not answer") if called else ("is signed in", "is not signed in")
            log.info("agent CLIs on PATH: %s", ", ".join(
                f"{kind} {word[0] if _checked[(kind, found[kind], called)].available else word[1]}"
                for kind in missing))
    return {kind: _checked[(kind, path, called)] for kind, path in found.items()}


async def answering(config: CouncilConfig) -> list[ProviderConfig]:
    """The agent CLIs on PATH that are signed in (checked without a model call), as providers on their default
    models (none when ``config`` turns the found CLIs off)."""
    if not config.agent_clis:
        return []
    return [ProviderConfig(kind=kind) for kind, status in (await statuses()).items()  # type: ignore[arg-type]
            if status.available]


def forget() -> None:
    """Drop the answers kept (tests; a process that changed PATH or signed a CLI in)."""
    _checked.clear()
