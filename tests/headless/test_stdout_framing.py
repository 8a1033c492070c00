"""stdout carries the protocol only: read the raw bytes with strict Content-Length framing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

# A sidecar whose persona loading writes junk to stdout every way it can (print, sys.stdout, fd 1): all of it must
# land on stderr, none in the protocol stream.
NOISY = textwrap.dedent("""
    import os, sys
    import council.personas.loader as loader
    real = loader.load_personas
    def noisy(*a, **k):
        print("stray print")
        sys.stdout.write("stray write\\n")
        os.write(1, b"stray fd1 bytes\\n")
        return real(*a, **k)
    loader.load_personas = noisy
    from council.cli.main import main
    sys.exit(main(["serve", "--provider", "scripted", "--no-embeddings"]))
""")


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def parse_strict(raw: bytes, partial: bool = False) -> list[dict]:
    """Frames in ``raw``; any byte outside a well-formed frame fails (``partial``: an unfinished tail is fine)."""
    messages, rest = [], raw
    while rest:
        head, sep, tail = rest.partition(b"\r\n\r\n")
        if not sep:
            unfinished_header = b"Content-Length:".startswith(head) or head.startswith(b"Content-Length:")
            if partial and unfinished_header:
                break
            raise AssertionError(f"stray bytes on stdout: {head[:100]!r}")
        rest = tail
        lines = head.split(b"\r\n")
        assert all(line.lower().startswith((b"content-length:", b"content-type:")) for line in lines), head[:100]
        length = int(next(line for line in lines if line.lower().startswith(b"content-length:")).split(b":")[1])
        if partial and len(rest) < length:
            break
        body, rest = rest[:length], rest[length:]
        assert len(body) == length, "truncated body"
        messages.append(json.loads(body))
    return messages


def read_until(proc: subprocess.Popen, raw: bytearray, ids: set[int], timeout: float = 60) -> None:
    """Read stdout bytes until responses with all ``ids`` have arrived (parsing strictly as we go)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = {m.get("id") for m in parse_strict(bytes(raw), partial=True)}
        if ids <= got:
            return
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        raw.extend(chunk)
    raise AssertionError(f"no responses for {ids - got}")


def test_raw_stdout_is_only_framed_json_rpc():
    first = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "council/turn",
         "params": {"text": "Should we adopt a monorepo?", "options": {"clarify": False, "maxCycles": 2}}},
        {"jsonrpc": "2.0", "id": 3, "method": "council/turn", "params": {"text": 7}},
    ]
    last = [{"jsonrpc": "2.0", "id": 4, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]
    proc = subprocess.Popen([sys.executable, "-c", NOISY], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "COUNCIL_LOG_LEVEL": "INFO"})
    raw = bytearray()
    try:
        proc.stdin.write(b"".join(frame(m) for m in first))
        proc.stdin.flush()
        read_until(proc, raw, {1, 2, 3})
        proc.stdin.write(b"".join(frame(m) for m in last))
        proc.stdin.close()
        raw.extend(proc.stdout.read())
        stderr = proc.stderr.read().decode()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    messages = parse_strict(bytes(raw))
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert by_id[2]["result"]["status"] == "completed"
    assert by_id[3]["error"]["data"]["code"] == "validation"
    assert "result" in by_id[4]
    assert proc.returncode == 0
    events = [m for m in messages if m.get("method") == "council/event"]
    assert events and all(m["params"]["sessionId"] == by_id[2]["result"]["sessionId"] for m in events)
    assert "stray print" in stderr and "stray write" in stderr and "stray fd1 bytes" in stderr
    # pygls's INFO logs would carry whole prompts; at INFO the sidecar logs no message bodies
    assert "Sending data" not in stderr and "Should we adopt a monorepo" not in stderr
