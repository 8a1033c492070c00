"""The agent CLIs found on PATH, and which of them can answer: the seats of a council nothing else chose a model for
(README, "Models": after the client's own model, before a local Ollama; ``agent_clis = false`` or
``COUNCIL_AGENT_CLIS=0`` turns it off). ``council doctor`` shows the same check.

Each CLI on PATH is asked a tiny prompt ("Reply with the word OK.") under a short deadline, concurrently; a CLI that
is not signed in, out of quota or not answering is left out. The answers are kept for the life of the process (per
executable found), so a sidecar checks each CLI once, however many sessions it seats.
"""

from __future__ import annotations

import logging
import shutil

import anyio
import anyio.lowlevel

from council.config import AGENT_CLI_KINDS, CouncilConfig, ProviderConfig
from council.providers.agent_cli import DEFAULT_MODEL
from council.providers.base import ProviderStatus

__all__ = ["CHECK_DEADLINE", "DEFAULT_MODEL", "answering", "forget", "on_path", "statuses"]

log = logging.getLogger(__name__)

#: Seconds each CLI has to answer the check (a Node CLI takes seconds to start on a busy machine).
CHECK_DEADLINE = 30.0

_checked: dict[tuple[str, str], ProviderStatus] = {}  # (kind, executable) → its answer
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


async def _check(kind: str) -> ProviderStatus:
    from council.providers.registry import build_provider

    provider = build_provider(ProviderConfig(kind=kind, options={"deadline": CHECK_DEADLINE}))  # type: ignore[arg-type]
    try:
        return await provider.check()
    except Exception as err:  # a check reports, never breaks the caller
        log.debug("checking %s failed", kind, exc_info=True)
        return ProviderStatus(available=False, detail=f"{type(err).__name__}: {err}")
    finally:
        await provider.aclose()


async def statuses() -> dict[str, ProviderStatus]:
    """kind → whether it answers, for each agent CLI on PATH (checked at most once per process and executable)."""
    found = on_path()
    async with _loop_lock():
        missing = [kind for kind, path in found.items() if (kind, path) not in _checked]

        async def check(kind: str) -> None:
            _checked[(kind, found[kind])] = await _check(kind)

        if missing:
            async with anyio.create_task_group() as tg:
                for kind in missing:
                    tg.start_soon(check, kind)
            log.info("agent CLIs on PATH: %s", ", ".join(
                f"{kind} {'answers' if _checked[(kind, found[kind])].available else 'does not answer'}"
                for kind in missing))
    return {kind: _checked[(kind, path)] for kind, path in found.items()}


async def answering(config: CouncilConfig) -> list[ProviderConfig]:
    """The agent CLIs on PATH that answer, as providers on their default models (none when ``config`` turns the
    found CLIs off)."""
    if not config.agent_clis:
        return []
    return [ProviderConfig(kind=kind) for kind, status in (await statuses()).items()  # type: ignore[arg-type]
            if status.available]


def forget() -> None:
    """Drop the answers kept (tests; a process that changed PATH or signed a CLI in)."""
    _checked.clear()
