"""``council mcp``'s workspace: the folder a tool call names (its ``workspace`` argument), else ``--workspace``, else
the client's filesystem roots (MCP ``roots/list``; clients of MCP 2026-07-28 have none), as the README describes
("The workspace"). A root is judged by its path as given and resolved against the evidence rules' secret
folders (those rules judge only the paths inside a root). A root whose service cannot be built fails each call with
the cause until it can be: no call runs in another folder meanwhile. Each workspace has its own
:class:`~council.service.CouncilService`, built on first use and kept (at most :data:`MAX_WORKSPACES`; an idle one
beyond that is closed), so a running call keeps the workspace it started with.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

import anyio
import mcp.types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from council.errors import validation_error
from council.evidence.workspace import is_secret
from council.providers.sampling import ask_client
from council.service import CouncilService

log = logging.getLogger("council.mcp")

ROOTS_TIMEOUT = 10.0  # seconds the client has to answer roots/list
MAX_WORKSPACES = 8  # services kept (one per workspace the client's roots named)


class ListedRoots(types.Result):
    """``roots/list``'s answer as it came: each root is judged by :func:`root_folder` (the SDK's
    ``ListRootsResult`` refuses the whole list for one root whose URI is not ``file://``)."""

    roots: list[Any]


def root_folder(uri: str) -> Path | None:
    """The local folder a root's URI names, or None (not ``file://``, not a local host, not an existing folder)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    try:
        path = Path(url2pathname(parsed.path))  # url2pathname decodes the %-escapes (once: %2541 is %41)
        if not path.is_absolute():  # file:docs, file:. — a root names a folder, not one relative to our cwd
            return None
        folder = path.resolve()
        if is_secret(path.as_posix()) or is_secret(folder.as_posix()):  # ~/.ssh, a link to it …: the evidence rules
            log.info("a root in a secret-looking folder is not used: %s", folder)  # judge paths inside the root only
            return None
        return folder if folder.is_dir() else None
    except (OSError, ValueError):
        return None


class Workspaces:
    """The service each tool call runs on: the started one, or the one for the client's first root."""

    def __init__(self, started: CouncilService, service_for: Callable[[Path], CouncilService] | None) -> None:
        """``service_for`` builds the service of a root's folder; None: the workspace was given (``--workspace``),
        roots are never asked."""
        self.started = started
        self.current = started
        self.service_for = service_for
        self.services: OrderedDict[Path, CouncilService] = OrderedDict()  # by root (the started one is none)
        self.root: Path | None = None  # the root the current service is for
        self.stale = True  # roots not asked yet, or changed since
        self.lock = anyio.Lock()

    def roots_changed(self) -> None:
        """``notifications/roots/list_changed``: ask again before the next call."""
        log.info("the client's roots changed; asking again before the next tool call")
        self.stale = True

    async def service(self, session, named: str | None = None) -> CouncilService:
        """The service for this call (``session``: its :class:`~council.mcpserver.link.ClientLink`): the folder the
        call names (``named``, its ``workspace`` argument) first, then the one ``--workspace`` fixed, then the
        client's first root (only a client that still offers roots), else where the server was started."""
        if named is not None:
            return await self._named(named)
        if self.service_for is None or not self.stale:
            return self.current
        client = session.client_params  # a handshake's client (2026-07-28 has no server→client requests)
        if client is None or client.capabilities.roots is None:
            return self.current
        async with self.lock:
            if self.stale:
                self.stale = False  # a list_changed that arrives while we ask sets it again
                listed, folder = await self._first_root(session)
                if listed and folder is None and self.root is not None:  # its roots withdrawn: not read any more
                    self.current, self.root = self.started, None
                    log.info("workspace: %s again (the client lists no usable root)", self.started.config.workspace)
                elif folder is not None and folder != self.root:  # the started folder as a root: now read too
                    try:
                        service = self._service(folder)
                    except Exception:  # a broken persona file in the root …: every call says so, none runs elsewhere
                        self.stale = True
                        raise
                    self.current, self.root = service, folder
                    log.info("workspace: %s (the client's first root)", folder)
                    for idle in self._evict():
                        await idle.aclose()
        return self.current

    async def _named(self, text: str) -> CouncilService:
        """The service of the folder a call names: judged as a root is (an existing local folder by its absolute
        path, not a secret-looking one); on a server whose workspace is fixed (``--workspace``, ``--no-roots``) only
        that folder."""
        try:
            folder = root_folder(Path(text).as_uri()) if text and Path(text).is_absolute() else None
        except ValueError:
            folder = None
        if folder is None:
            raise validation_error(f"workspace {text[:300]!r} is not an existing local folder given by its absolute "
                                   "path (or it looks like a secret folder)", fields={"workspace": "not usable"},
                                   reason="workspace_unusable")
        fixed = self.started.config.workspace
        if self.service_for is None:
            if fixed is not None and Path(fixed).resolve() == folder:
                return self.started
            raise validation_error(f"this server's workspace is fixed ({fixed}; it was started with --workspace or "
                                   "--no-roots): leave out the workspace argument or name that folder",
                                   fields={"workspace": "fixed by the server"}, reason="workspace_fixed")
        async with self.lock:
            service = self._service(folder)
            for idle in self._evict():
                await idle.aclose()
        return service

    async def _first_root(self, session) -> tuple[bool, Path | None]:
        """Whether the client listed its roots, and the first usable one."""
        try:  # read leniently: a root the SDK's ListRootsResult refuses (an https:// URI …) is skipped, not fatal
            result = await ask_client(session, lambda: session.send_request(
                types.ListRootsRequest(), ListedRoots), timeout=ROOTS_TIMEOUT,
                related_request_id=None)  # withdrawn at the deadline
        except TimeoutError:
            log.info("no roots/list answer within %g s; the workspace stays %s", ROOTS_TIMEOUT,
                     self.current.config.workspace)
            return False, None
        except MCPError as exc:
            log.info("roots/list failed (%s); the workspace stays %s", exc.error.message, self.current.config.workspace)
            return False, None
        except ValidationError as exc:
            log.info("roots/list answered with no list of roots (%s); the workspace stays %s",
                     str(exc).splitlines()[0][:200], self.current.config.workspace)
            return False, None
        uris = [root.get("uri") if isinstance(root, dict) else None for root in result.roots]
        folders = [(uri, root_folder(uri) if isinstance(uri, str) else None) for uri in uris]
        usable = [folder for _, folder in folders if folder is not None]
        unusable = [str(uri) for uri, folder in folders if folder is None]
        if unusable:
            log.info("roots that are not local folders are not used: %s", ", ".join(unusable)[:2000])
        if not usable:
            log.info("the client lists no folder as a root")
            return True, None
        if len(usable) > 1:
            log.info("the client lists %d folders as roots; the workspace is the first, %s", len(usable), usable[0])
        return True, usable[0]

    def _service(self, folder: Path) -> CouncilService:
        service = self.services.get(folder)
        if service is None:
            assert self.service_for is not None
            service = self.services[folder] = self.service_for(folder)
        self.services.move_to_end(folder)
        return service

    def _evict(self) -> list[CouncilService]:
        """The least recently used idle services beyond :data:`MAX_WORKSPACES`, dropped (never one that runs a
        session, the current one or the started one): the caller closes them."""
        dropped = []
        for folder, service in list(self.services.items()):
            if len(self.services) <= MAX_WORKSPACES:
                break
            if service is self.current or service is self.started or any(
                    live.running is not None for live in service.store.all()):
                continue
            del self.services[folder]
            dropped.append(service)
        return dropped

    def all(self) -> list[CouncilService]:
        """Every service to close when the server stops."""
        return list(dict.fromkeys([self.started, *self.services.values()]))
