"""What the archive keeps after a turn (transcript files, decision memory) never fails the turn, and text that cannot
be encoded as UTF-8 (a lone surrogate: how Python reads a file name that is not UTF-8) is written with U+FFFD instead
of breaking the transcript or the memory."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_helpers import NO_QUESTIONS, asking

from council import archive
from council.archive import write_transcript
from council.memory import MemoryStore
from council.present.transcript import transcript
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import SessionSettings
from council.session.state.entities import SessionStatus as S

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
SETTINGS = SessionSettings(min_cycles=2, max_cycles=2)


def latin1_workspace(base: Path) -> Path:
    root = base / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# hi\n", encoding="utf-8")
    with open(bytes(root) + b"/docs/caf\xe9.md", "wb") as f:
        f.write(b"notes\n")
    with open(bytes(root) + b"/r\xe9sum\xe9.txt", "wb") as f:
        f.write(b"cv\n")
    return root


async def ask(h, text: str):
    res = await h.service.turn(TurnParams(text=text, options=SessionOptions(personas=COUNCIL, clarify=False)))
    return res, h.runtime(res.session_id)


async def test_evidence_about_a_name_that_is_not_utf8_reaches_the_transcript_file(make_service, tmp_path):
    root, out = latin1_workspace(tmp_path), tmp_path / "transcripts"
    h = make_service({"rules": [NO_QUESTIONS, asking("Software Architect", ("list_files", "**"))]},
                     settings=SETTINGS, workspace=root, evidence_root=root, transcript_dir=out, memory=True)
    res, rt = await ask(h, "Should we split our monolith into services this quarter?")
    assert res.status is S.COMPLETED
    [use] = rt.session.evidence
    assert use.ok and "docs/caf\ufffd.md" in use.text.splitlines()
    assert rt.session.workspace_overview == ["docs/", "README.md", "r\ufffdsum\ufffd.txt"]
    [file] = out.iterdir()
    assert "docs/caf\ufffd.md" in file.read_text(encoding="utf-8")
    [event] = h.of(res.session_id, "evidence.gathered")
    json.dumps(event, ensure_ascii=False).encode("utf-8")  # what the wire encodes
    assert len(MemoryStore(root).all()) == 1


async def test_text_that_cannot_be_encoded_is_written_with_a_replacement_character(make_service, tmp_path):
    h = make_service({"rules": [NO_QUESTIONS, asking("Software Architect", ("list_files", "**"))]},
                     settings=SETTINGS, workspace=tmp_path, evidence_root=tmp_path)
    _, rt = await ask(h, "Should we split our monolith into services this quarter?")
    [use] = rt.session.evidence
    use.text += "\ndocs/caf\udce9.md"  # as a name that is not UTF-8 reads (surrogateescape), kept by older code
    path = write_transcript(tmp_path / "out", rt.session)
    assert "docs/caf\ufffd.md" in path.read_text(encoding="utf-8")
    assert "\udce9" not in transcript(rt.session)
    kept = MemoryStore(tmp_path)
    rt.session.synthesis.recommendation += " (see caf\udce9.md)"
    kept.remember(rt.session)
    assert kept.all()[0].recommendation.endswith("(see caf\ufffd.md)")


async def test_an_archive_failure_of_any_kind_never_fails_the_turn(make_service, tmp_path, monkeypatch, caplog):
    def broken(folder, session):
        raise RuntimeError("the disk said no")

    monkeypatch.setattr(archive, "write_transcript", broken)
    h = make_service({"rules": [NO_QUESTIONS]}, settings=SETTINGS, transcript_dir=tmp_path / "t")
    res, _ = await ask(h, "Should we split our monolith into services this quarter?")
    assert res.status is S.COMPLETED
    assert "could not write the transcript" in caplog.text and "the disk said no" in caplog.text
