"""A config file is read like a review request (``council.config.read_config_file``): a regular file only, its size
checked before reading, never blocking; every other path is one ``ConfigFileError`` naming the file and what is wrong
(in the language being written), and a bad field is named by its path."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import socket
import tempfile
import time
from pathlib import Path

import pytest

from council.config import MAX_CONFIG_BYTES, ConfigFileError, load_config, read_config_file
from council.words import speaking

GOOD = {"default": "local", "providers": {"local": {"kind": "ollama", "model": "qwen2.5:7b"}}}


def refused(path: str | Path) -> ConfigFileError:
    """The error loading ``path`` raises, within a few seconds (an alarm fails a read that blocks)."""
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail(f"reading {path} blocked"))
    signal.alarm(5)
    started = time.monotonic()
    try:
        with pytest.raises(ConfigFileError) as err:
            load_config(path, env={})
    finally:
        signal.alarm(0)
    assert time.monotonic() - started < 2
    assert str(path) in str(err.value)
    return err.value


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path):
    fifo = tmp_path / "council.json"
    os.mkfifo(fifo)
    err = refused(fifo)
    assert err.problem == "not_regular" and "FIFO" in str(err)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_device_is_refused_without_reading_it(device: str):
    err = refused(device)
    assert err.problem == "not_regular" and "character device" in str(err)


def test_a_folder_a_socket_and_a_missing_file_are_refused(tmp_path: Path):
    assert "folder" in str(refused(tmp_path))
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "s.json"))
        assert "socket" in str(refused(tmp_path / "s.json"))
    assert refused(tmp_path / "absent.json").problem == "missing"


def test_a_huge_sparse_file_is_refused_by_its_size_before_reading(tmp_path: Path):
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(1 << 30)  # 1 GiB, no blocks on disk: reading it would take seconds and a GiB of memory
    err = refused(huge)
    assert err.problem == "too_large" and "1024.0 MiB" in str(err) and "1.0 MiB" in str(err)
    just = tmp_path / "just.json"
    just.write_bytes(b" " * (MAX_CONFIG_BYTES - 2) + b"{}")
    assert load_config(just, env={}).providers == {}


def test_a_loop_of_links_is_refused_and_a_link_to_a_file_is_followed(tmp_path: Path):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    assert refused(tmp_path / "a.json").problem == "loop"
    real = tmp_path / "real.json"
    real.write_text(json.dumps(GOOD), encoding="utf-8")
    (tmp_path / "link.json").symlink_to(real)
    assert load_config(tmp_path / "link.json", env={}).default == "local"


def test_a_path_through_a_file_is_unreadable(tmp_path: Path):
    (tmp_path / "file").write_text("{}", encoding="utf-8")
    assert refused(tmp_path / "file" / "council.json").problem == "unreadable"


def test_an_unreadable_file_is_refused_naming_why():
    """chmod 000 stops everyone but root, and the tests may run as root: the reading is then done in a child process
    that gives up root first (nobody), so the permission check is the kernel's; beside the closed file, an open one
    in the same folder is read, so the folder itself is not what stops it."""
    folder = Path(tempfile.mkdtemp(prefix="council-config-"))  # not under pytest's 0700 folder: nobody can enter
    try:
        folder.chmod(0o755)
        (folder / "open.json").write_text(json.dumps(GOOD), encoding="utf-8")
        (folder / "closed.json").write_text(json.dumps(GOOD), encoding="utf-8")
        (folder / "open.json").chmod(0o644)
        (folder / "closed.json").chmod(0)
        outcomes = read_as_nobody([folder / "open.json", folder / "closed.json"]) if os.geteuid() == 0 else [
            outcome(folder / "open.json"), outcome(folder / "closed.json")]
    finally:
        shutil.rmtree(folder)
    assert outcomes[0] == ("read", "")
    problem, text = outcomes[1]
    assert problem == "unreadable" and "Permission denied" in text and "closed.json" in text


def outcome(path: Path) -> tuple[str, str]:
    try:
        read_config_file(path)
        return "read", ""
    except ConfigFileError as exc:
        return exc.problem, str(exc)


def read_as_nobody(paths: list[Path]) -> list[tuple[str, str]]:
    """:func:`outcome` of each path in a forked child that runs as nobody (uid/gid 65534)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest from here on, only the reader and os._exit
        code = 1
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            os.write(write_end, pickle.dumps([outcome(path) for path in paths]))
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and data, "the child could not drop root to check"
    return pickle.loads(data)


@pytest.mark.parametrize(("name", "body", "problem", "says"), [
    ("c.json", b'{"providers": ', "syntax", "not valid JSON: Expecting value (line 1, column 15)"),
    ("c.toml", b"default = [\n", "syntax", "not valid TOML"),
    ("c.json", b'{"max_sessions": NaN}', "syntax", "NaN is not a JSON number"),
    ("c.json", b"\xff\xfe{}", "encoding", "not UTF-8 text (byte 0)"),
    ("c.json", b"[1, 2]", "not_table", "must hold a JSON object at the top, not a list"),
])
def test_a_file_that_is_not_json_or_toml_says_where(tmp_path: Path, name: str, body: bytes, problem: str, says: str):
    (tmp_path / name).write_bytes(body)
    err = refused(tmp_path / name)
    assert err.problem == problem and says in str(err)


def test_a_bad_field_is_named_with_what_is_wrong_and_no_pydantic_footer(tmp_path: Path):
    config = tmp_path / "council.toml"
    config.write_text('max_sessions = "many"\n[providers.local]\nkind = "nope"\napi_key = "sk-live-123456"\n',
                      encoding="utf-8")
    text = str(refused(config))
    assert "max_sessions: Input should be a valid integer" in text
    assert "providers.local.kind: Input should be 'openai'" in text
    assert "providers.local.api_key:" in text and "sk-live-123456" not in text  # a pasted key is never echoed
    assert "errors.pydantic.dev" not in text and "For further information" not in text


@pytest.mark.parametrize(("name", "body"), [
    ("c.json", '{"session_ttl_seconds": 1e999}'),  # JSON's overflow: infinity, a TTL that never ends
    ("c.toml", "session_ttl_seconds = inf\n"),
    ("c.toml", '[providers.a]\nkind = "ollama"\ntimeout = nan\n'),
])
def test_an_infinite_or_nan_number_is_a_bad_field(tmp_path: Path, name: str, body: str):
    (tmp_path / name).write_text(body, encoding="utf-8")
    err = refused(tmp_path / name)
    assert err.problem == "fields" and "Input should be a finite number" in str(err)


def test_the_error_is_written_in_the_language_being_written(tmp_path: Path):
    fifo = tmp_path / "council.json"
    os.mkfifo(fifo)
    err = refused(fifo)
    with speaking("ru"):
        assert str(err).startswith(f"файл настроек {fifo} — не обычный файл, а FIFO")
    assert str(err).startswith(f"config file {fifo} is not a regular file but a FIFO")


def test_council_config_from_the_environment_is_read_the_same_way():
    with pytest.raises(ConfigFileError) as err:
        load_config(None, env={"COUNCIL_CONFIG": "/dev/zero"})
    assert err.value.problem == "not_regular"
