"""The decision memory's file as the user's disk may hold it: a file that is not a decision memory is refused with a
clear reason (never rewritten) and the council decides without it; a ``.council`` folder or memory file that leads
outside the workspace (a symlink) is refused, and nothing is written there."""

from __future__ import annotations

from pathlib import Path

import pytest
from evidence_helpers import NO_QUESTIONS

from council.errors import CouncilError, ErrorCode
from council.memory import MemoryRefused, MemoryStore
from council.memory.store import FILE
from council.protocol.consult import DecisionsParams
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import SessionSettings
from council.session.state.entities import SessionStatus as S

SPLIT = "Should we split our monolith into services this quarter?"
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
JUNK = b"junk\n"


async def decide(make_service, workspace: Path):
    h = make_service({"rules": [NO_QUESTIONS]}, settings=SessionSettings(min_cycles=1, max_cycles=1),
                     workspace=workspace, memory=True)
    res = await h.service.turn(TurnParams(text=SPLIT, options=SessionOptions(personas=COUNCIL)))
    assert res.status is S.COMPLETED
    return h


def corrupt(workspace: Path) -> Path:
    (workspace / ".council").mkdir(parents=True)
    (workspace / FILE).write_bytes(JUNK)
    return workspace / FILE


@pytest.mark.parametrize("use", ["check", "all", "get", "similar", "forget"])
def test_a_file_that_is_not_a_decision_memory_is_refused_by_every_use(tmp_path: Path, use: str):
    path = corrupt(tmp_path)
    calls = {"check": lambda s: s.check(), "all": lambda s: s.all(), "get": lambda s: s.get("abcd"),
             "similar": lambda s: s.similar(SPLIT), "forget": lambda s: s.forget("abcd")}
    with pytest.raises(MemoryRefused) as err:
        calls[use](MemoryStore(tmp_path))
    assert err.value.reason == "unreadable" and err.value.path == path and "not a database" in err.value.detail
    assert path.read_bytes() == JUNK


async def test_the_council_decides_without_an_unreadable_memory_and_the_query_tool_says_why(make_service, tmp_path,
                                                                                          caplog):
    path = corrupt(tmp_path)
    h = await decide(make_service, tmp_path)
    assert path.read_bytes() == JUNK and "is not a decision memory" in caplog.text
    with pytest.raises(CouncilError) as err:
        h.service.archive.decisions(DecisionsParams())
    e = err.value
    assert e.code is ErrorCode.VALIDATION and e.details == {"reason": "memory_unreadable", "path": str(path)}
    assert e.message.startswith(f"{path} is not a decision memory") and "move it away" in e.message


@pytest.mark.parametrize("link", [".council", ".council/decisions.sqlite3"])
async def test_a_memory_that_leads_outside_the_workspace_is_refused(make_service, tmp_path, link: str):
    root, elsewhere = tmp_path / "ws", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    if link == ".council":
        (root / ".council").symlink_to(elsewhere)
    else:
        (root / ".council").mkdir()
        (root / FILE).symlink_to(elsewhere / "decisions.sqlite3")
    h = await decide(make_service, root)
    assert list(elsewhere.iterdir()) == []  # was elsewhere/decisions.sqlite3
    with pytest.raises(CouncilError) as err:
        h.service.archive.decisions(DecisionsParams(query="monolith"))
    assert err.value.code is ErrorCode.PERMISSION and err.value.details["reason"] == "memory_outside_workspace"
    assert "leads outside the workspace" in err.value.message
    with pytest.raises(MemoryRefused):
        MemoryStore(root).all()


async def test_a_council_folder_linked_inside_the_workspace_is_fine(make_service, tmp_path):
    (tmp_path / "kept").mkdir()
    (tmp_path / ".council").symlink_to(tmp_path / "kept")
    await decide(make_service, tmp_path)
    assert (tmp_path / "kept" / "decisions.sqlite3").is_file() and len(MemoryStore(tmp_path).all()) == 1
