"""``council mcp`` without ``--workspace`` takes its workspace from the client's MCP roots: the official SDK client
offers roots to a real ``council mcp`` subprocess, and persona overrides land in the root it names (then in the new
one after ``notifications/roots/list_changed``); with ``--workspace`` the roots are never asked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import mcp.types as types
from mcp import ClientSession

from .conftest import council_mcp as launch

OVERRIDE = {"overrides": {"Devil's Advocate": {"focus": ["Cost of delay for every option"]}}}
WRITTEN = Path(".council/personas/devils-advocate.toml")


class Roots:
    """The client's roots, and how often the server asked for them."""

    def __init__(self, *folders: Path) -> None:
        self.folders = list(folders)
        self.asked = 0

    async def __call__(self, _context) -> types.ListRootsResult:
        self.asked += 1
        return types.ListRootsResult(roots=[types.Root(uri=f.as_uri(), name=f.name) for f in self.folders])


@asynccontextmanager
async def council_mcp(tmp_path: Path, roots: Roots | None, *extra: str) -> AsyncIterator[ClientSession]:
    started_in = tmp_path / "started-in"
    started_in.mkdir(exist_ok=True)
    args = ["-m", "council", "mcp", "--provider", "scripted", "--no-embeddings", *extra]
    async with launch(args, started_in, tmp_path, list_roots_callback=roots) as session:
        yield session


async def override(session: ClientSession) -> types.CallToolResult:
    draft = await session.call_tool("council_define_personas", OVERRIDE)
    assert not draft.is_error, draft
    applied = await session.call_tool("council_define_personas", {"confirm": draft.structured_content["draft"]["id"]})
    assert not applied.is_error and applied.structured_content["written"] == [str(WRITTEN)], applied
    return applied


def focus(listing: types.CallToolResult) -> list[str]:
    return next(p["focus"] for p in listing.structured_content["personas"] if p["name"] == "Devil's Advocate")


async def test_the_workspace_is_the_clients_first_root_and_follows_its_changes(tmp_path: Path):
    first, second, other = (tmp_path / name for name in ("first", "second", "other"))
    for folder in (first, second, other):
        folder.mkdir()
    roots = Roots(first, other)
    async with council_mcp(tmp_path, roots) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "first filesystem root (MCP roots" in tools["council_define_personas"].description
        await override(s)
        assert (first / WRITTEN).is_file() and not (tmp_path / "started-in" / ".council").exists()
        assert roots.asked == 1
        listed = await s.call_tool("council_define_personas", {})
        assert "Cost of delay for every option" in focus(listed) and roots.asked == 1  # asked once, until changed

        roots.folders = [tmp_path / "missing", second]  # a root that is no folder is passed over
        await s.send_roots_list_changed()
        listed = await s.call_tool("council_define_personas", {})
        assert roots.asked == 2
        assert "Cost of delay for every option" not in focus(listed)  # the second root has no override
        await override(s)
        assert (second / WRITTEN).is_file() and not (other / ".council").exists()

        roots.folders = [first]  # back to the first: its override is there again
        await s.send_roots_list_changed()
        assert "Cost of delay for every option" in focus(await s.call_tool("council_define_personas", {}))


async def test_a_client_without_roots_keeps_the_folder_the_server_started_in(tmp_path: Path):
    async with council_mcp(tmp_path, None) as s:
        await override(s)
    assert (tmp_path / "started-in" / WRITTEN).is_file()


async def test_an_explicit_workspace_wins_and_the_roots_are_never_asked(tmp_path: Path):
    given, root = tmp_path / "given", tmp_path / "root"
    given.mkdir()
    root.mkdir()
    roots = Roots(root)
    async with council_mcp(tmp_path, roots, "--workspace", str(given)) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "MCP roots" not in tools["council_define_personas"].description
        await override(s)
    assert (given / WRITTEN).is_file() and not (root / ".council").exists() and roots.asked == 0


async def test_a_client_that_fails_roots_list_keeps_the_folder_the_server_started_in(tmp_path: Path):
    async def refuse(_context) -> types.ErrorData:
        return types.ErrorData(code=types.INTERNAL_ERROR, message="no roots today")

    async with council_mcp(tmp_path, refuse) as s:  # type: ignore[arg-type]
        await override(s)
        assert "Cost of delay for every option" in focus(await s.call_tool("council_define_personas", {}))
    assert (tmp_path / "started-in" / WRITTEN).is_file()


async def test_no_roots_keeps_the_folder_the_server_started_in(tmp_path: Path):
    root = tmp_path / "root"
    root.mkdir()
    roots = Roots(root)
    async with council_mcp(tmp_path, roots, "--no-roots") as s:  # the extension's untrusted workspace
        await override(s)
    assert (tmp_path / "started-in" / WRITTEN).is_file() and not (root / ".council").exists() and roots.asked == 0


async def test_a_root_that_is_not_a_file_uri_is_passed_over_not_fatal(tmp_path: Path):
    """The SDK's ListRootsResult refuses the whole list for one ``https://`` root: the call failed with an internal
    error instead of passing that root over and taking the next (hostile test, session 8)."""
    folder = tmp_path / "folder"
    folder.mkdir()

    async def mixed(_context) -> types.ListRootsResult:  # what a client may send: the SDK's models would refuse it
        return types.ListRootsResult.model_construct(roots=[types.Root.model_construct(uri="https://example.com/x"),
                                                            types.Root(uri=folder.as_uri())])

    async with council_mcp(tmp_path, mixed) as s:  # type: ignore[arg-type]
        await override(s)
    assert (folder / WRITTEN).is_file() and not (tmp_path / "started-in" / ".council").exists()


async def test_a_root_linked_to_a_secret_folder_is_passed_over(tmp_path: Path):
    """A root that is a symlink to ``~/.ssh``: the workspace stayed there, its files read as evidence and overrides
    written into it (hostile test, session 8); now it is passed over."""
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True)
    (tmp_path / "project").symlink_to(ssh)
    async with council_mcp(tmp_path, Roots(tmp_path / "project")) as s:
        await override(s)
    assert (tmp_path / "started-in" / WRITTEN).is_file() and not (ssh / ".council").exists()


async def test_a_removed_root_is_not_the_workspace_any_more(tmp_path: Path):
    """After ``roots/list_changed`` with no root left, the overrides went on being written into the removed root
    (hostile test, session 8): the server is back in the folder it started in."""
    root = tmp_path / "root"
    root.mkdir()
    roots = Roots(root)
    async with council_mcp(tmp_path, roots) as s:
        await override(s)
        assert (root / WRITTEN).is_file()
        roots.folders = []
        await s.send_roots_list_changed()
        assert "Cost of delay for every option" not in focus(await s.call_tool("council_define_personas", {}))
        await override(s)
    assert (tmp_path / "started-in" / WRITTEN).is_file()
