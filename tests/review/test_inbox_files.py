"""The inbox's file primitives (``council.review.files``): renames that never replace (renameat2 and the link/unlink
fallback), create-only atomic JSON writes, bounded non-blocking reads, names that fit the 255-byte limit."""

from __future__ import annotations

import json
import os
import threading

import pytest

from council.errors import CouncilError
from council.review import files


@pytest.fixture(params=["renameat2", "link"])
def mover(request, monkeypatch):
    if request.param == "renameat2":
        assert files._RENAMEAT2 is not None, "this Linux has renameat2"
    else:
        monkeypatch.setattr(files, "_RENAMEAT2", None)
    return files.move_new


def test_move_new_never_replaces_a_file_or_a_folder(tmp_path, mover):
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    with pytest.raises(FileExistsError):
        mover(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "a").read_text() == "a" and (tmp_path / "b").read_text() == "b"
    (tmp_path / "d").mkdir()
    (tmp_path / "e").mkdir()
    with pytest.raises(FileExistsError):
        mover(tmp_path / "d", tmp_path / "e")
    mover(tmp_path / "a", tmp_path / "c")
    mover(tmp_path / "d", tmp_path / "f")
    assert sorted(os.listdir(tmp_path)) == ["b", "c", "e", "f"]


def test_move_new_moves_a_symlink_itself(tmp_path, mover):
    (tmp_path / "target").write_text("t")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    mover(tmp_path / "link", tmp_path / "moved")
    assert (tmp_path / "moved").is_symlink() and (tmp_path / "target").read_text() == "t"


def test_racers_for_one_name_one_wins_and_nothing_is_lost(tmp_path, mover):
    def race(src, target, won):
        try:
            mover(src, target)
            won.append(src)
        except FileExistsError:
            pass

    for i in range(50):
        srcs = [tmp_path / f"s{i}-{k}" for k in range(4)]
        for k, src in enumerate(srcs):
            src.write_text(str(k))
        won: list = []
        threads = [threading.Thread(target=race, args=(s, tmp_path / f"t{i}", won)) for s in srcs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(won) == 1 and sum(s.exists() for s in srcs) == 3


def test_write_new_refuses_an_existing_name_and_leaves_no_temp_file(tmp_path):
    files.write_new(tmp_path / "d.json", {"x": 1})
    with pytest.raises(FileExistsError):
        files.write_new(tmp_path / "d.json", {"x": 2})
    assert json.loads((tmp_path / "d.json").read_text()) == {"x": 1}
    assert os.listdir(tmp_path) == ["d.json"]


def test_write_new_carries_a_lone_surrogate_as_an_escape(tmp_path):
    files.write_new(tmp_path / "d.json", {"text": "ok \ud800 é", "when": object.__new__(object)})
    data = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert data["text"] == "ok \ud800 é" and data["when"].startswith("<object")


def test_remove_temp_files_takes_only_its_own_pattern(tmp_path):
    for name in (".council-tmp-1-2", ".council-tmp-1-2.json", ".council-tmp-x-1", "council-tmp-1-2", "a.json",
                 ".r1.decision.json.4242.123456789.tmp", ".a.tmp"):  # the second to last: the earlier writer's
        (tmp_path / name).write_text("")
    assert sorted(files.remove_temp_files(tmp_path)) == [".council-tmp-1-2", ".r1.decision.json.4242.123456789.tmp"]
    assert sorted(os.listdir(tmp_path)) == [".a.tmp", ".council-tmp-1-2.json", ".council-tmp-x-1", "a.json",
                                            "council-tmp-1-2"]


def test_read_request_file_reads_at_most_the_limit(tmp_path):
    (tmp_path / "ok").write_bytes(b"x" * 10)
    assert files.read_request_file(tmp_path / "ok", 10) == b"x" * 10
    with pytest.raises(CouncilError) as err:
        files.read_request_file(tmp_path / "ok", 9)
    assert err.value.details == {"reason": "too_large", "limit": 9, "size": 10}
    with pytest.raises(FileNotFoundError):
        files.read_request_file(tmp_path / "missing", 9)


def test_read_at_most_stops_a_stream_after_limit_plus_one_bytes():
    r, w = os.pipe()
    try:
        os.write(w, b"y" * 100)
        with pytest.raises(CouncilError) as err:
            files.read_at_most(r, 10)
        assert err.value.details == {"reason": "too_large", "limit": 10}
        assert os.read(r, 1000) == b"y" * 89  # only 11 bytes were taken
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize(("make", "kind"), [("fifo", "fifo"), ("dir", "directory"), ("link", "symlink")])
def test_read_request_file_refuses_what_is_not_a_regular_file_without_blocking(tmp_path, make, kind):
    path = tmp_path / "x.json"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "dir":
        path.mkdir()
    else:
        (tmp_path / "real").write_text("{}")
        path.symlink_to(tmp_path / "real")
    with pytest.raises(CouncilError) as err:
        files.read_request_file(path, 100)
    assert err.value.details == {"reason": "not_regular", "kind": kind}


def test_fit_name_cuts_whole_characters_to_255_bytes():
    name = files.fit_name("é" * 200, ".1.error.json")
    assert len(name.encode()) <= 255 and name.endswith("é.1.error.json")
    assert files.fit_name("short", ".error.json") == "short.error.json"
