"""``council ask`` on agent-CLI seats says, before the first call, how each CLI bills a headless call and the calls
per CLI — also when every seat is on one CLI (a single chat model is named by the session's model note alone, but
a CLI's calls are billed to the user's plan, so the cost line counts them on it): the real Claude Code against its
scripted model on 127.0.0.1, in text and in ``--json`` (where what a person reads goes to stderr)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from .council_model import council_reply
from .fake_models import FakeModels, serving

QUESTION = "Should we split our monolith into services this quarter?"
BILLS = ("Each call runs the CLI headless and is billed as your sign-in bills it: Claude Code uses your Claude plan's "
         "usage limits")
FIRST_CALL = "The moderator reads your question"


@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_one_cli_seating_all_says_its_calls_and_how_it_bills_first(json_out, home: Path, marker: Path,
                                                                    monkeypatch: pytest.MonkeyPatch):
    fake = FakeModels(marker=marker, answer=partial(council_reply, "claude"))
    with serving(fake) as url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        done = subprocess.run([sys.executable, "-m", "council", "ask", "--yes", *(["--json"] if json_out else []),
                               "--models", "claude:claude-sonnet-4-6", "--personas",
                               "Software Architect,Devil's Advocate", "--max-cycles", "1", QUESTION], input="",
                              capture_output=True, text=True, timeout=400, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stderr if json_out else done.stdout
    first_call = said.index(FIRST_CALL)
    assert said.index(BILLS) < first_call, said[:first_call]
    calls = re.search(r"at most (\d+) model calls \((\d+) planned[^)]*\) — (\d+) on claude:claude-sonnet-4-6\.", said)
    assert calls and calls.start() < first_call, said[:first_call]
    assert calls[3] == calls[2]  # every planned call is on the one CLI
    assert not marker.exists()
