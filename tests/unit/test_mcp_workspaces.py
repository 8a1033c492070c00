"""The workspace a ``council mcp`` tool call runs in (:class:`council.mcpserver.roots.Workspaces`), with a stand-in
session answering roots/list and stand-in services: the first usable root wins, the started folder offered as a root
gets its own service (read as evidence), roots are asked once until they change, and idle services beyond the cap
are closed. The real client and server meet in tests/mcp_tools/test_mcp_roots.py."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import mcp.types as types
import pytest

from council.mcpserver.roots import MAX_WORKSPACES, Workspaces, root_folder
from council.session.state.store import Live


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

    async def send_request(self, request, result_type, **_kw):  # as the SDK does: the answer read as result_type
        self.asked += 1
        return result_type.model_validate({"roots": [{"uri": f.as_uri()} for f in self.folders]})


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


def test_root_folder_decodes_once_and_refuses_relative_uris(tmp_path: Path, monkeypatch):
    """A folder named ``a%41`` is not ``aA`` (the path was unquoted twice), and ``file:``, ``file:.`` or
    ``file:docs`` named a folder relative to the server's own directory (hostile test, session 8)."""
    (tmp_path / "a%41").mkdir()
    (tmp_path / "aA").mkdir()
    assert root_folder((tmp_path / "a%41").as_uri()) == (tmp_path / "a%41").resolve()
    monkeypatch.chdir(tmp_path)
    assert [root_folder(uri) for uri in ("file:", "file:.", "file:aA", "file:..")] == [None] * 4
    assert root_folder(f"file:{tmp_path / 'aA'}") == (tmp_path / "aA").resolve()  # file:/abs is absolute


async def test_a_roots_answer_that_is_no_list_keeps_the_workspace(tmp_path: Path):
    """roots/list answered with garbage: the call goes ahead in the workspace it had (it failed with an internal
    error, the SDK's ValidationError; hostile test, session 8)."""
    started = Service(tmp_path)
    workspaces = Workspaces(started, Service)  # type: ignore[arg-type]
    folder = tmp_path / "root"
    folder.mkdir()

    class Answering(Session):
        def __init__(self, raw) -> None:
            super().__init__()
            self.raw = raw

        async def send_request(self, request, result_type, **_kw):  # the SDK validates with the type it was given
            self.asked += 1
            return result_type.model_validate(self.raw)

    assert await workspaces.service(Answering({"roots": "not a list"})) is started
    workspaces.roots_changed()
    current = await workspaces.service(Answering({"roots": [{"uri": "not a uri"}, 7, {"uri": folder.as_uri()}]}))
    assert current.config.workspace == folder.resolve()


async def test_a_root_whose_service_cannot_be_built_fails_each_call_and_none_runs_elsewhere(tmp_path: Path):
    """A broken persona file in the root: the first call failed with the cause, the next ran in the folder the server
    started in (council_define_personas wrote there; hostile test, session 8). Each call now fails until it loads."""
    started, root = Service(tmp_path), tmp_path / "root"
    root.mkdir()
    broken = [True]

    def service_for(folder: Path) -> Service:
        if broken[0]:
            raise ValueError("bad.toml: TOML syntax error")
        return Service(folder)

    workspaces = Workspaces(started, service_for)  # type: ignore[arg-type]
    session = Session(root)
    for _ in range(2):
        with pytest.raises(ValueError, match="TOML"):
            await workspaces.service(session)
    broken[0] = False  # fixed: the next call runs in the root, without a roots/list_changed
    assert (await workspaces.service(session)).config.workspace == root.resolve()


def test_a_root_in_a_secret_folder_is_not_used(tmp_path: Path):
    """The evidence rules judge paths inside the workspace, so a root naming ``~/.ssh`` (or a link to it) had every
    file there read as evidence (hostile test, session 8)."""
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True)
    (tmp_path / "project").symlink_to(ssh)
    (tmp_path / "secrets").mkdir()
    for folder in (ssh, tmp_path / "project", tmp_path / "secrets"):
        assert root_folder(folder.as_uri()) is None, folder
    assert root_folder((tmp_path / "home").as_uri()) == (tmp_path / "home").resolve()  # .ssh inside stays refused


async def test_roots_withdrawn_give_the_started_folder_back(tmp_path: Path):
    """The client removed its root (lists none usable now): the workspace stayed the removed folder, still read as
    evidence (hostile test, session 8). A roots/list that fails still leaves the workspace as it was."""
    started, root = Service(tmp_path), tmp_path / "root"
    root.mkdir()
    workspaces = Workspaces(started, Service)  # type: ignore[arg-type]
    session = Session(root)
    assert (await workspaces.service(session)).config.workspace == root.resolve()
    session.folders = [tmp_path / "missing"]
    workspaces.roots_changed()
    assert await workspaces.service(session) is started


async def test_a_service_running_a_turn_is_kept_and_one_with_idle_sessions_is_closed(tmp_path: Path):
    """The store holds :class:`Live` entries (the session store's own records): a service whose session runs a turn
    (its lock held) is never evicted; one whose sessions wait is. Before: the eviction read ``cancel_scope`` off the
    entries, which they no longer have, and failed the ninth workspace's tool call (final review, session 9)."""
    started = Service(tmp_path)
    made: list[Service] = []
    workspaces = Workspaces(started, lambda folder: made.append(Service(folder)) or made[-1])  # type: ignore[arg-type]
    session = Session()
    for i in range(MAX_WORKSPACES + 2):
        folder = tmp_path / f"root-{i}"
        folder.mkdir()
        session.folders = [folder]
        workspaces.roots_changed()
        await workspaces.service(session)
        if i == 0:  # the oldest runs a turn, the next one only holds a waiting session
            busy = Live(rt=None, turn=SimpleNamespace())  # type: ignore[arg-type]
            await busy.lock.acquire()
            made[0].store = SimpleNamespace(all=lambda busy=busy: [busy])
        elif i == 1:
            made[1].store = SimpleNamespace(all=lambda: [Live(rt=None)])  # type: ignore[arg-type]
    assert not made[0].closed and made[0] in workspaces.services.values()
    assert made[1].closed and made[2].closed and len(workspaces.services) == MAX_WORKSPACES
