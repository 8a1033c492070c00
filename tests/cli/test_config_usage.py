"""Every command that takes ``--config`` refuses a config file it cannot use, and ``ask``/``serve``/``mcp`` a
``--workspace`` that is no folder, as a usage error: one line on stderr naming the file (and the field, and what is
wrong), in the user's language, exit 2 (``council review``: 3, its usage exit, since 2 is NEEDS_MORE_INFO), at once —
never a traceback, never a read that blocks (a FIFO) or never ends (``/dev/zero``)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import PROBLEM, run_council

FAST = ("--provider", "scripted", "--no-embeddings")
#: command → (its arguments around --config, its usage exit code)
COMMANDS = {
    "ask": (("ask", *FAST, "--yes", PROBLEM), 2),
    "serve": (("serve", "--no-embeddings"), 2),
    "mcp": (("mcp", "--no-embeddings"), 2),
    "doctor": (("doctor",), 2),
    "review": (("review", "-"), 3),
    "inbox": (("inbox", "{tmp}/inbox", "--once"), 2),
}


def refusal(tmp_path: Path, command: str, *extra: str, env: dict[str, str] | None = None) -> tuple[str, float]:
    """Run ``council COMMAND … EXTRA``; the one line it says on stderr (asserting the usage exit, no traceback, no
    output on stdout) and how long it took."""
    args, code = COMMANDS[command]
    started = time.monotonic()
    try:
        r = run_council(*(a.replace("{tmp}", str(tmp_path)) for a in args), *extra, timeout=30,
                        env={"LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", **(env or {})})
    except subprocess.TimeoutExpired:
        pytest.fail(f"council {command} {' '.join(extra)} did not exit within 30 s")
    took = time.monotonic() - started
    assert r.returncode == code, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and r.stdout.strip() == "", r.stdout + r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0], took


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "council.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_fifo_is_refused_at_once_by_every_command(tmp_path: Path, fifo: Path, command: str):
    line, took = refusal(tmp_path, command, "--config", str(fifo))
    assert line.startswith(f"council {command}: error: config file {fifo} is not a regular file but a FIFO"), line
    assert took < 15, took


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_bad_field_is_named_by_every_command(tmp_path: Path, command: str):
    config = tmp_path / "council.json"
    config.write_text(json.dumps({"providers": {"local": {"kind": "ollama", "timeout": "soon"}}}), encoding="utf-8")
    line, _ = refusal(tmp_path, command, "--config", str(config))
    assert f"config file {config} has bad fields: providers.local.timeout: Input should be a valid number" in line
    assert "For further information" not in line


@pytest.mark.parametrize(("kind", "make", "says"), [
    ("device", lambda tmp: Path("/dev/zero"), "is not a regular file but a character device"),
    ("null device", lambda tmp: Path("/dev/null"), "is not a regular file but a character device"),
    ("folder", lambda tmp: tmp, "is not a regular file but a folder"),
    ("missing", lambda tmp: tmp / "absent.json", "does not exist"),
    ("invalid TOML", lambda tmp: _write(tmp / "c.toml", "default = [\n"), "is not valid TOML"),
    ("invalid JSON", lambda tmp: _write(tmp / "c.json", "{"), "is not valid JSON"),
    ("huge", lambda tmp: _sparse(tmp / "huge.json", 1 << 30), "is too large (1024.0 MiB"),
])
def test_every_kind_of_unusable_config_is_a_usage_error_of_serve(tmp_path: Path, kind: str, make, says: str):
    path = make(tmp_path)
    line, took = refusal(tmp_path, "serve", "--config", str(path))
    assert line.startswith(f"council serve: error: config file {path} {says}"), line
    assert took < 15, took


def test_council_config_from_the_environment_is_checked_the_same_way(tmp_path: Path):
    line, _ = refusal(tmp_path, "ask", env={"COUNCIL_CONFIG": "/dev/zero"})
    assert line == ("council ask: error: config file /dev/zero is not a regular file but a character device: give a "
                    "JSON or TOML file")


def test_the_refusal_is_in_the_users_language(tmp_path: Path, fifo: Path):
    line, _ = refusal(tmp_path, "serve", "--config", str(fifo), env={"LANG": "ru_RU.UTF-8"})
    assert line.startswith(f"council serve: ошибка: файл настроек {fifo} — не обычный файл, а FIFO"), line
    r = run_council("ask", *FAST, "--yes", "--config", str(fifo), "Стоит ли нам разделить монолит?", timeout=30)
    assert r.returncode == 2 and r.stderr.startswith("council ask: ошибка: файл настроек"), r.stderr  # the question's


@pytest.mark.parametrize("command", ["ask", "serve", "mcp"])
def test_a_workspace_that_is_no_folder_is_a_usage_error(tmp_path: Path, command: str):
    line, _ = refusal(tmp_path, command, "--workspace", str(tmp_path / "absent"))
    assert line == f"council {command}: error: --workspace {tmp_path / 'absent'}: no such folder"
    file = _write(tmp_path / "file.txt", "not a folder")
    line, _ = refusal(tmp_path, command, "--workspace", str(file))
    assert line == f"council {command}: error: --workspace {file}: not a folder"


def test_a_literal_key_as_api_key_env_is_a_usage_error_that_does_not_echo_it(tmp_path: Path):
    line, _ = refusal(tmp_path, "serve", "--provider", "openai", "--api-key-env", "sk-live-0123456789")
    assert line.startswith("council serve: error: --api-key-env: ") and "environment variable reference" in line
    assert "sk-live-0123456789" not in line


def test_a_good_config_still_starts_every_session(tmp_path: Path):
    config = _write(tmp_path / "council.toml", '[providers.local]\nkind = "scripted"\n')
    r = run_council("ask", *FAST, "--yes", "--json", "--config", str(config), "--workspace", str(tmp_path), PROBLEM)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["session"]["status"] == "completed"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as f:
        f.truncate(size)
    return path
