"""A workspace to read as evidence (every kind of file the tools must refuse next to ones they may show), and
persona replies that ask for evidence."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from unit_helpers import persona_reply, rule

PLAN = "PLAN-SENTINEL-42: migrate billing first, then orders."
SECRET = "API_TOKEN=hunter2-SECRET-VALUE"


def make_workspace(base: Path, *, git: bool = False) -> Path:
    """``base/ws`` with source files, a secrets file, ignored output, a binary, a big file and symlinks out; and
    ``base/outside`` next to it (never to be read)."""
    root, outside = base / "ws", base / "outside"
    for folder in (root / "src", root / "notes", root / "build", root / "config", root / "keys", outside):
        folder.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text("OUTSIDE-SECRET\n", encoding="utf-8")
    (root / "src" / "app.py").write_text("def main():\n    return 42  # TODO: speed up billing\n", encoding="utf-8")
    (root / "src" / "orders.py").write_text("class Orders:\n    # TODO: split from billing\n    pass\n",
                                            encoding="utf-8")
    (root / "notes" / "plan.md").write_text(f"# Plan\n\n{PLAN}\n", encoding="utf-8")
    (root / ".env").write_text(SECRET + "\n", encoding="utf-8")
    (root / "config" / ".env.production").write_text(SECRET + "\n", encoding="utf-8")
    (root / "keys" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n", encoding="utf-8")
    (root / "server.pem").write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n", encoding="utf-8")
    (root / "build" / "bundle.js").write_text("// TODO: generated\n", encoding="utf-8")
    (root / "debug.log").write_text("TODO: ignored log\n", encoding="utf-8")
    (root / "keep.log").write_text("kept on purpose\n", encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00TODO")
    (root / "big.txt").write_text("TODO " * 230_000, encoding="utf-8")  # ~1.15 MB
    os.symlink(outside / "secret.txt", root / "out_link")
    os.symlink(outside, root / "dir_link")
    os.symlink(root / ".env", root / "innocent_name")
    if git:
        run = {"cwd": root, "check": True, "capture_output": True}
        subprocess.run(["git", "init", "-q", "."], **run)
        subprocess.run(["git", "add", "src", "notes", ".gitignore", "keep.log"], **run)
    return root


def asking(who: str, *requests: tuple[str, str] | tuple[str, str, bool], cycle: int = 1,
           **kw: Any) -> dict[str, Any]:
    """A rule: ``who``'s reply in ``cycle`` asks for ``requests`` ((tool, query[, regex]) each)."""
    reply = persona_reply(cycle, who=who, **kw)
    reply["evidence_requests"] = [{"tool": r[0], "query": r[1], "regex": bool(r[2]) if len(r) > 2 else False}
                                  for r in requests]
    return rule("PersonaReply", reply, purpose=who, cycle=cycle)


NO_QUESTIONS = rule("ClarifierReply", {"needs_clarification": False, "reason": "clear", "questions": []})
