"""The workspace a ``council mcp`` tool call runs in (:class:`council.mcpserver.roots.Workspaces`), with a stand-in
session answering roots/list and stand-in services: the first usable root wins, the started folder offered as a root
gets its own service (read as evidence), roots are asked once until they change, and idle services beyond the cap
are closed. The real client and server meet in tests/mcp_tools/test_mcp_roots.py."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import mcp.types as types

from council.mcpserver.roots import MAX_WORKSPACES, Workspaces, root_folder


class Service:
    def __init__(self, folder: Path) -> None:
        self.config = SimpleNamespace(workspace=folder)
        self.store = SimpleNamespace(all=lambda: [])
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True


class Session:
    def __init__(self, *folders: Path) -> None:
        self.client_params = SimpleNamespace(capabilities=SimpleNamespace(roots=types.RootsCapability()))
        self.folders = list(folders)
        self.asked = 0

    async def send_request(self, request, result_type, **_kw):
        self.asked += 1
        return types.ListRootsResult(roots=[types.Root(uri=f.as_uri()) for f in self.folders])


def test_root_folder_takes_local_folders_only(tmp_path: Path):
    assert root_folder(tmp_path.as_uri()) == tmp_path.resolve()
    assert root_folder((tmp_path / "missing").as_uri()) is None
    assert root_folder("https://example.com/x") is None and root_folder("file://otherhost/tmp") is None


async def test_the_started_folder_offered_as_a_root_gets_a_service_of_its_own(tmp_path: Path):
    started = Service(tmp_path)
    built: list[Path] = []
    workspaces = Workspaces(started, lambda folder: built.append(folder) or Service(folder))  # type: ignore[arg-type]
    session = Session(tmp_path)
    current = await workspaces.service(session)
    assert built == [tmp_path.resolve()] and current is not started  # its own config: the root is read as evidence
    assert await workspaces.service(session) is current and session.asked == 1


async def test_idle_services_beyond_the_cap_are_closed(tmp_path: Path):
    started = Service(tmp_path)
    made: list[Service] = []
    workspaces = Workspaces(started, lambda folder: made.append(Service(folder)) or made[-1])  # type: ignore[arg-type]
    session = Session()
    for i in range(MAX_WORKSPACES + 3):
        folder = tmp_path / f"root-{i}"
        folder.mkdir()
        session.folders = [folder]
        workspaces.roots_changed()
        assert (await workspaces.service(session)).config.workspace == folder
    assert len(workspaces.services) == MAX_WORKSPACES and [s.closed for s in made[:3]] == [True] * 3
    assert not any(s.closed for s in made[3:]) and started in workspaces.all()
