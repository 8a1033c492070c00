"""The evidence tools as the engine calls them: async, each in a worker thread under a time limit.

:class:`WorkspaceTools` implements the session's ``EvidenceTools`` contract for one workspace root. The workspace
(and whether git judges it) is opened on first use, off the event loop. A tool that runs past its time limit is
refused as ``timeout`` (searching and listing also watch the same deadline themselves and stop early); a tool that
fails is refused as ``error``. Nothing here writes to the workspace. The limit can only fire while the event loop
runs, which is why no tool matches a model's pattern on the sidecar's GIL (:mod:`council.evidence.tools`).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import anyio
import anyio.to_thread

from council.evidence.tools import TOOLS
from council.evidence.workspace import Workspace
from council.session.state.grounds import EvidenceResult

log = logging.getLogger(__name__)

TOOL_SECONDS = 5.0  # one tool's time limit
GRACE_SECONDS = 1.0  # past it, the runner stops waiting for a tool that did not stop itself


class WorkspaceTools:
    def __init__(self, root: Path, seconds: float = TOOL_SECONDS) -> None:
        self.root = root
        self.seconds = seconds
        self._workspace: Workspace | None = None
        self._opening = anyio.Lock()

    async def workspace(self) -> Workspace:
        async with self._opening:
            if self._workspace is None:
                self._workspace = await anyio.to_thread.run_sync(Workspace, self.root)
            return self._workspace

    async def overview(self) -> list[str]:
        try:
            with anyio.fail_after(self.seconds + GRACE_SECONDS):
                ws = await self.workspace()
                return await anyio.to_thread.run_sync(ws.overview, abandon_on_cancel=True)
        except Exception as exc:  # the advisors can still list files themselves
            log.warning("could not list the workspace's top level: %s", exc)
            return []

    async def run(self, tool: str, query: str, regex: bool) -> EvidenceResult:
        fn = TOOLS.get(tool)
        if fn is None:
            return EvidenceResult(ok=False, refusal="unknown_tool", detail=tool[:300])
        started = time.monotonic()
        try:
            with anyio.fail_after(self.seconds + GRACE_SECONDS):
                ws = await self.workspace()
                deadline = started + self.seconds
                result = await anyio.to_thread.run_sync(fn, ws, query, regex, deadline, abandon_on_cancel=True)
        except TimeoutError:
            return EvidenceResult(ok=False, refusal="timeout")
        except OSError as exc:
            log.info("%s %r failed: %s", tool, query, exc)
            return EvidenceResult(ok=False, refusal="error", detail=type(exc).__name__)
        return result
